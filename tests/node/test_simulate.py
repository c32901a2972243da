"""eth_simulateV1 driven by viem (simulateCalls, simulateBlocks) against the devnet."""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx
from web3 import Web3

from snowfield.testing import RunningNode, run_node_script
from tests.bytecode import REVERTER, STORE, STORE_TOPIC, deploy_code, word

DEV0 = Web3.to_checksum_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
POOR = "0x" + "5a" * 20
PAYEE = "0x" + "11" * 20
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

SCRIPT = """
import { createPublicClient, http } from 'viem'
const [url, account, store, reverter, poor, payee, head] = process.argv.slice(2)
const client = createPublicClient({ transport: http(url) })
const json = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x))
const calls = await client.simulateCalls({
  account,
  calls: [
    { to: store, data: '0x' + '00'.repeat(31) + '2a' },
    { to: payee, value: 5n },
    { to: reverter },
  ],
  traceTransfers: true,
})
const funded = await client.simulateCalls({
  account: poor,
  calls: [{ to: payee, value: 7n }],
  stateOverrides: [{ address: poor, balance: 10n ** 18n }],
})
const blocks = await client.simulateBlocks({
  blocks: [
    { calls: [{ from: account, to: store, data: '0x' + '00'.repeat(31) + '07' }] },
    {
      blockOverrides: { number: BigInt(head) + 2n, time: 2000000000n },
      // The store's code replaced by a getter of slot 0: its storage stays.
      stateOverrides: [{ address: store, code: '0x60005460005260206000f3' }],
      calls: [{ from: account, to: store, data: '0x' }],
    },
  ],
  returnFullTransactions: true,
})
console.log(json({ calls, funded, blocks }))
"""


def deploy(w3: Web3, runtime: bytes) -> str:
    tx = w3.eth.send_transaction({"from": DEV0, "data": deploy_code(runtime)})
    return str(w3.eth.wait_for_transaction_receipt(tx)["contractAddress"])


def test_viem_simulate_calls_and_blocks(w3: Web3, devnet: RunningNode) -> None:
    store, reverter = deploy(w3, STORE), deploy(w3, REVERTER)
    head = w3.eth.block_number
    out = run_node_script(
        SCRIPT, devnet.rpc, DEV0, store, reverter, POOR, PAYEE, str(head), packages=("viem",)
    )
    got = json.loads(out)
    stored, paid, reverted = got["calls"]["results"]
    assert stored["status"] == "success" and stored["data"] == "0x" + word(42).hex()
    (log,) = stored["logs"]
    assert log["topics"] == ["0x" + STORE_TOPIC.hex()] and log["address"] == store.lower()
    assert paid["status"] == "success" and int(paid["gasUsed"]) == 21_000
    (transfer,) = paid["logs"]  # traceTransfers: the ether moved, as an ERC-20 Transfer
    assert transfer["topics"][0] == TRANSFER_TOPIC and transfer["topics"][2].endswith("11" * 20)
    assert reverted["status"] == "failure" and "boom" in reverted["error"]["shortMessage"]
    assert got["calls"]["block"]["number"] == str(head + 1)
    (funded,) = got["funded"]["results"]
    assert funded["status"] == "success"
    first, second = got["blocks"]
    assert first["number"] == str(head + 1) and second["number"] == str(head + 2)
    assert second["timestamp"] == "2000000000"
    assert second["calls"][0]["data"] == "0x" + word(7).hex()  # state carried across blocks
    (tx,) = first["transactions"]
    assert tx["from"] == DEV0.lower() and tx["to"] == store.lower()
    assert w3.eth.block_number == head  # nothing was mined
    assert w3.eth.get_storage_at(store, 0) == word(0)


def _simulate(devnet: RunningNode, opts: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_simulateV1", "params": [opts, "latest"]}
    return httpx.post(devnet.rpc, json=body, timeout=30).json()


def test_simulate_errors_carry_geths_codes(devnet: RunningNode) -> None:
    assert _simulate(devnet, {"blockStateCalls": []})["error"]["code"] == -32602
    out = _simulate(
        devnet,
        {"blockStateCalls": [{"blockOverrides": {"number": "0x0"}}]},
    )
    assert out["error"]["code"] == -38020
    broke = {"from": POOR, "to": PAYEE, "value": "0x1"}
    out = _simulate(devnet, {"blockStateCalls": [{"calls": [broke]}]})
    assert out["error"]["code"] == -38014 and "insufficient funds" in out["error"]["message"]
    nonce = {"from": DEV0, "to": PAYEE, "nonce": "0x0", "maxFeePerGas": "0x10000000000"}
    out = _simulate(devnet, {"blockStateCalls": [{"calls": [nonce]}], "validation": True})
    assert out["error"]["code"] == -38010
    too_many = {"blockStateCalls": [{"blockOverrides": {"number": "0x100000"}}]}
    assert _simulate(devnet, too_many)["error"]["code"] == -38026
    low = {"from": DEV0, "to": PAYEE, "gas": "0x1"}
    out = _simulate(devnet, {"blockStateCalls": [{"calls": [low]}]})
    assert out["error"] == {"code": -38013, "message": "intrinsic gas too low: have 1, want 21000"}
    gas = {"from": DEV0, "to": PAYEE, "gas": "0xffffffffff"}
    assert _simulate(devnet, {"blockStateCalls": [{"calls": [gas]}]})["error"]["code"] == -38015
    out = _simulate(devnet, {"blockStateCalls": [{"calls": [{"from": DEV0, "to": PAYEE}]}]})
    assert out["result"][0]["calls"][0]["status"] == "0x1"


def test_simulate_fills_a_gap_in_block_numbers(devnet: RunningNode) -> None:
    head = int(
        httpx.post(
            devnet.rpc, json={"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber"}
        ).json()["result"],
        16,
    )
    out = _simulate(devnet, {"blockStateCalls": [{"blockOverrides": {"number": hex(head + 4)}}]})
    blocks = out["result"]
    assert [int(b["number"], 16) for b in blocks] == [head + 1, head + 2, head + 3, head + 4]
    stamps = [int(b["timestamp"], 16) for b in blocks]
    assert all(b - a == 12 for a, b in itertools.pairwise(stamps))
    assert all(b["parentHash"] == a["hash"] for a, b in itertools.pairwise(blocks))
