"""viem drives a custom EVM chain hosted by a devnet node at /ext/bc/<id>/rpc and /ws as it
drives the C-Chain: deploy, call, logs, newHeads and logs subscriptions, a precompile call."""

from __future__ import annotations

import json

from snowfield.chains.evm.customgenesis import genesis_json
from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.testing import run_node_script, serve_devnet_with_custom_evm
from tests.bytecode import STORE, deploy_code

DEV = bytes.fromhex("f39fd6e51aad88f6f4ce6ab8827279cfffb92266")
FREE = FeeConfig(min_block_gas_cost=0, max_block_gas_cost=0, block_gas_cost_step=0)

SCRIPT = """
import {
  createPublicClient, createWalletClient, defineChain, http, webSocket, parseAbi,
} from 'viem'
const [base, id, code] = process.argv.slice(2)
const rpc = `${base}/ext/bc/${id}/rpc`
const ws = rpc.replace('http', 'ws').replace(/rpc$/, 'ws')
const chainId = await createPublicClient({ transport: http(rpc) }).getChainId()
const chain = defineChain({
  id: chainId, name: 'custom', nativeCurrency: { name: 'T', symbol: 'T', decimals: 18 },
  rpcUrls: { default: { http: [rpc], webSocket: [ws] } },
})
const client = createPublicClient({ chain, transport: http(rpc), pollingInterval: 50 })
const live = createPublicClient({ chain, transport: webSocket(ws) })
const DEV = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const wallet = createWalletClient({ chain, transport: http(rpc), account: DEV })
const out = { chainId }
const heads = []
const unwatchHeads = live.watchBlocks({ onBlock: (b) => heads.push(Number(b.number)) })
const events = []
await new Promise((r) => setTimeout(r, 200))

const deployed = await client.waitForTransactionReceipt({
  hash: await wallet.sendTransaction({ data: code }),
})
out.deployStatus = deployed.status
const address = deployed.contractAddress
const unwatchLogs = live.watchEvent({ address, onLogs: (logs) => events.push(...logs) })
await new Promise((r) => setTimeout(r, 200))
const stored = await client.waitForTransactionReceipt({
  hash: await wallet.sendTransaction({ to: address, data: '0x' + '00'.repeat(31) + '2a' }),
})
out.storeStatus = stored.status
out.call = (await client.call({ to: address, data: '0x' + '00'.repeat(31) + '07' })).data
out.logs = (await client.getLogs({ address, fromBlock: 0n })).length

const minter = parseAbi(['function mintNativeCoin(address addr, uint256 amount)',
  'function readAllowList(address addr) view returns (uint256)'])
const M = '0x0200000000000000000000000000000000000001'
const to = '0x00000000000000000000000000000000000000c3'
out.role = Number(await client.readContract({ address: M, abi: minter,
  functionName: 'readAllowList', args: [DEV] }))
const minted = await client.waitForTransactionReceipt({ hash: await wallet.writeContract({
  address: M, abi: minter, functionName: 'mintNativeCoin', args: [to, 1234n] }) })
out.mintStatus = minted.status
out.minted = (await client.getBalance({ address: to })).toString()
out.feeConfig = await client.request({ method: 'eth_feeConfig', params: [] })

for (let i = 0; i < 100 && (events.length < 1 || heads.length < 3); i++) {
  await new Promise((r) => setTimeout(r, 50))
}
out.subscribedLogs = events.length
out.subscribedHeads = heads.length >= 3
unwatchHeads(); unwatchLogs()
await live.transport.getRpcClient().then((c) => c.close())
console.log(JSON.stringify(out))
"""


def test_viem_drives_a_custom_evm_chain_hosted_by_the_node() -> None:
    genesis = genesis_json(
        66_666,
        {DEV: 10**24},
        fee=FREE,
        precompiles={
            "contractNativeMinterConfig": {
                "blockTimestamp": 0,
                "adminAddresses": ["0x" + DEV.hex()],
            }
        },
    )
    with serve_devnet_with_custom_evm(genesis) as (running, blockchain_id):
        code = "0x" + deploy_code(STORE).hex()
        out = json.loads(
            run_node_script(SCRIPT, running.base, blockchain_id, code, packages=("viem",))
        )
    assert out["chainId"] == 66_666
    assert (out["deployStatus"], out["storeStatus"], out["mintStatus"]) == ("success",) * 3
    assert out["call"] == "0x" + "00" * 31 + "07" and out["logs"] == 1
    assert out["role"] == 2 and out["minted"] == "1234"
    assert out["feeConfig"] == {"feeConfig": FREE.as_json(), "lastChangedAt": 0}
    assert out["subscribedLogs"] == 1 and out["subscribedHeads"] is True
