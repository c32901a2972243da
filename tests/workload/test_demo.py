"""The demo traffic against a real devnet: everything it promises lands on chain."""

from __future__ import annotations

import asyncio
import base64
import json

from web3 import Web3

from snowfield.rpc.client import RpcClient
from snowfield.testing import RunningNode
from snowfield.workload.contracts import call_data, load, selector
from snowfield.workload.demo import DemoReport, run_demo

KEYS = [
    bytes.fromhex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
    bytes.fromhex("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"),
    bytes.fromhex("5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"),
]


def test_artifacts_and_abi() -> None:
    token = load("DemoToken")
    assert token.bytecode and token.deployed_bytecode
    assert selector("transfer(address,uint256)") == bytes.fromhex("a9059cbb")
    data = call_data("transfer(address,uint256)", "0x" + "11" * 20, 5)
    assert len(data) == 4 + 64 and data[-1] == 5
    assert len(token.deploy_data("A", "B", 6, 1)) > len(token.bytecode)


def run(devnet: RunningNode, rounds: int) -> DemoReport:
    async def go() -> DemoReport:
        async with RpcClient(devnet.rpc) as client:
            return await run_demo(
                client, KEYS, rounds=rounds, interval=0, stop=None, log=lambda _: None
            )

    return asyncio.run(go())


def test_demo_round_lands_everything(devnet: RunningNode, w3: Web3) -> None:
    report = run(devnet, 2)
    assert report.rounds == 2
    assert {
        "native",
        "erc20",
        "erc721",
        "erc1155",
        "create",
        "create2",
        "value",
        "failed",
        "inner-revert",
    } <= set(report.sent)
    assert len(report.failed) == 2  # one deliberately failed transaction per round
    for tx_hash in report.failed:
        assert w3.eth.get_transaction_receipt(tx_hash)["status"] == 0
    nft = w3.eth.contract(
        address=Web3.to_checksum_address(report.contracts["DemoNFT"]), abi=load("DemoNFT").abi
    )
    uri = nft.functions.tokenURI(1).call()
    assert uri.startswith("data:application/json;base64,")
    meta = json.loads(base64.b64decode(uri.split(",", 1)[1]))
    assert meta["name"] == "Flake #1" and meta["image"].startswith("data:image/svg+xml;base64,")
    fusd = w3.eth.contract(
        address=Web3.to_checksum_address(report.contracts["FUSD"]), abi=load("DemoToken").abi
    )
    assert fusd.functions.decimals().call() == 6
    # The reverted inner call shows in the trace of the transaction that survived it.
    inner = [
        h
        for h in report.tx_hashes
        if w3.eth.get_transaction(h)["to"] == Web3.to_checksum_address(report.contracts["Reverter"])
    ][-1]
    trace = w3.provider.make_request("debug_traceTransaction", [inner, {"tracer": "callTracer"}])[
        "result"
    ]
    assert trace["calls"][0]["error"] == "execution reverted"
    assert trace["calls"][0]["revertReason"] == "demo revert"
    # CREATE and CREATE2 from the factory appear as such in traces.
    kinds = set()
    for block in range(w3.eth.block_number + 1):
        for entry in w3.provider.make_request(
            "debug_traceBlockByNumber", [hex(block), {"tracer": "callTracer"}]
        )["result"]:
            kinds.update(call["type"] for call in entry["result"].get("calls", []))
    assert {"CREATE", "CREATE2", "CALL"} <= kinds
