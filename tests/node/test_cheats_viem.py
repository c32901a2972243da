"""viem's test actions (anvil and hardhat modes) against the devnet, pinned to anvil's answers."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from snowfield.testing import run_node_script, serve_anvil, serve_devnet

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")

SCRIPT = """
import {
  createPublicClient, createTestClient, defineChain, http, publicActions, walletActions,
  parseEther, parseGwei,
} from 'viem'
const [url, mode] = process.argv.slice(2)
const id_ = await createPublicClient({ transport: http(url) }).getChainId()
const chain = defineChain({
  id: id_, name: 'dev', nativeCurrency: { name: 'AVAX', symbol: 'AVAX', decimals: 18 },
  rpcUrls: { default: { http: [url] } },
})
const client = createTestClient({ mode, chain, transport: http(url), pollingInterval: 50 })
  .extend(publicActions).extend(walletActions)
const DEV = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const A = '0x00000000000000000000000000000000000000a1'
const B = '0x00000000000000000000000000000000000000b2'
const C = '0x00000000000000000000000000000000000000c3'
const gone = (p) => p.then(() => 'found', () => 'gone')
const out = {}
const start = await client.getBlockNumber({ cacheTime: 0 })
const id = await client.snapshot()
out.snapshotId = /^0x[0-9a-f]+$/.test(id)

await client.setBalance({ address: A, value: 123n })
await client.setCode({ address: A, bytecode: '0x60016000f3' })
await client.setStorageAt({ address: A, index: 1, value: '0x' + '00'.repeat(31) + '2a' })
await client.setNonce({ address: A, nonce: 7 })
const account = async () => ({
  balance: (await client.getBalance({ address: A })).toString(),
  code: (await client.getCode({ address: A })) ?? null,
  storage: await client.getStorageAt({ address: A, slot: '0x1' }),
  nonce: await client.getTransactionCount({ address: A }),
})
out.edited = await account()
out.blocksAfterEdits = Number((await client.getBlockNumber({ cacheTime: 0 })) - start)

await client.setBalance({ address: B, value: parseEther('1') })
await client.impersonateAccount({ address: B })
const hash = await client.sendTransaction({ account: B, to: C, value: 5n })
const receipt = await client.waitForTransactionReceipt({ hash })
const sent = await client.getTransaction({ hash })
out.impersonated = {
  status: receipt.status, from: receipt.from, txFrom: sent.from,
  nonce: await client.getTransactionCount({ address: B }),
  received: (await client.getBalance({ address: C })).toString(),
}
await client.stopImpersonatingAccount({ address: B })
out.afterStop = await gone(client.sendTransaction({ account: B, to: C, value: 5n }))

const before = await client.getBlock()
await client.mine({ blocks: 3, interval: 10 })
const after = await client.getBlock()
out.mined = {
  blocks: Number(after.number - before.number),
  spaced: after.timestamp - before.timestamp >= 30n,
}

await client.setAutomine(false)
out.automineOff = await client.getAutomine()
const pending = await client.sendTransaction({ account: DEV, to: C, value: 1n })
out.minedWhileOff = Number((await client.getBlockNumber({ cacheTime: 0 })) - after.number)
await client.dropTransaction({ hash: pending })
out.dropped = await gone(client.getTransaction({ hash: pending }))
const kept = await client.sendTransaction({ account: DEV, to: C, value: 2n })
await client.mine({ blocks: 1 })
out.keptStatus = (await client.getTransactionReceipt({ hash: kept })).status
await client.setAutomine(true)
out.automineOn = await client.getAutomine()

await client.setCoinbase({ address: C })
await client.setBlockGasLimit({ gasLimit: 20_000_000n })
await client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('30') })
await client.mine({ blocks: 1 })
const built = await client.getBlock()
out.block = {
  miner: built.miner, gasLimit: built.gasLimit.toString(), baseFee: built.baseFeePerGas.toString(),
}
out.minGasPrice = await gone(client.setMinGasPrice({ gasPrice: 1n }))

const state = await client.dumpState()
out.revert = await client.request({ method: 'evm_revert', params: [id] })
out.revertAgain = await client.request({ method: 'evm_revert', params: [id] })
out.reverted = {
  blocks: Number((await client.getBlockNumber({ cacheTime: 0 })) - start),
  account: await account(),
  receipt: await gone(client.getTransactionReceipt({ hash })),
}
await client.loadState({ state })
out.loaded = await account()
console.log(JSON.stringify(out))
"""


def facts(url: str, mode: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(run_node_script(SCRIPT, url, mode, packages=("viem",)))
    return result


EXPECTED_ACCOUNT = {
    "balance": "123",
    "code": "0x60016000f3",
    "storage": "0x" + "00" * 31 + "2a",
    "nonce": 7,
}


@pytest.mark.parametrize("mode", ["anvil", "hardhat"])
def test_viem_test_actions_work_on_the_devnet(mode: str) -> None:
    with serve_devnet() as devnet:
        got = facts(devnet.rpc, mode)
    assert got["edited"] == EXPECTED_ACCOUNT
    assert got["blocksAfterEdits"] == 0
    assert got["impersonated"] == {
        "status": "success",
        "from": "0x00000000000000000000000000000000000000b2",
        "txFrom": "0x00000000000000000000000000000000000000b2",
        "nonce": 1,
        "received": "5",
    }
    assert got["afterStop"] == "gone"
    assert got["mined"] == {"blocks": 3, "spaced": True}
    assert (got["automineOff"], got["minedWhileOff"], got["dropped"]) == (False, 0, "gone")
    assert (got["keptStatus"], got["automineOn"]) == ("success", True)
    assert got["block"] == {
        "miner": "0x00000000000000000000000000000000000000c3",
        "gasLimit": "20000000",
        "baseFee": "30000000000",
    }
    assert got["minGasPrice"] == "gone"
    assert (got["revert"], got["revertAgain"]) == (True, False)
    assert got["reverted"] == {
        "blocks": 0,
        "account": {"balance": "0", "code": None, "storage": "0x" + "00" * 32, "nonce": 0},
        "receipt": "gone",
    }
    assert got["loaded"] == EXPECTED_ACCOUNT


def test_viem_test_actions_answer_as_on_anvil() -> None:
    with serve_devnet() as devnet:
        ours = facts(devnet.rpc, "anvil")
    with serve_anvil() as anvil:
        theirs = facts(anvil, "anvil")
    assert ours == theirs
