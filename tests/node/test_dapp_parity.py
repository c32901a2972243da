"""What dapp developers hit with viem, ethers v6 and web3.py against the devnet (issue 10)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from eth_account import Account
from eth_account.messages import encode_defunct
from web3 import Web3

from snowfield.testing import RunningNode, run_node_script
from tests.bytecode import CALLER, REVERTER, STORE, deploy_code, word
from tests.helpers import KEY0, rpc_reply

SCRIPTS = Path(__file__).parent / "dapp"


def js(name: str, *args: str) -> Any:
    """Runs tests/node/dapp/<name>.mjs (viem and ethers importable); its JSON output."""
    source = (SCRIPTS / "devnet.mjs").read_text() + (SCRIPTS / f"{name}.mjs").read_text()
    return json.loads(run_node_script(source, *args, packages=("viem", "ethers")))


DEV0 = Web3.to_checksum_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")


def test_a_new_filter_reports_no_past_log(devnet: RunningNode, w3: Web3) -> None:
    address = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "data": deploy_code(STORE)})
    )["contractAddress"]
    w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "to": address, "data": word(1)})
    )
    got = js("watch_events", devnet.rpc, address, KEY0, "0x" + word(2).hex())
    assert got["before"] == 0
    assert got["hashes"] == [got["sent"]]


def test_a_filter_from_a_past_block_still_starts_at_the_head(w3: Web3) -> None:
    address = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "data": deploy_code(STORE)})
    )["contractAddress"]
    w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "to": address, "data": word(1)})
    )
    log_filter = w3.eth.filter({"address": address, "fromBlock": 0})
    block_filter = w3.eth.filter("latest")
    assert log_filter.get_new_entries() == []
    assert block_filter.get_new_entries() == []
    assert len(w3.eth.get_filter_logs(log_filter.filter_id)) == 1
    ended = w3.eth.filter({"address": address, "fromBlock": 0, "toBlock": 1})
    w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "to": address, "data": word(2)})
    )
    assert len(log_filter.get_new_entries()) == 1
    assert ended.get_new_entries() == []


def test_a_set_code_transaction_keeps_its_authorization_list(devnet: RunningNode, w3: Web3) -> None:
    delegate = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "data": deploy_code(STORE)})
    )["contractAddress"]
    key = "0x" + "42" * 32
    sender = w3.eth.account.from_key(key).address
    w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "to": sender, "value": 10**18})
    )
    got = js("set_code", devnet.rpc, key, delegate)
    want = [{"address": delegate.lower(), "nonce": "1", "chainId": "43112"}]
    assert got["type"] == 4 and got["hash"] == got["sent"] and got["status"] == 1
    assert got["auth"] == want and got["blockAuth"] == want
    assert w3.eth.get_code(sender) == bytes.fromhex("ef0100") + bytes.fromhex(delegate[2:])
    raw = w3.provider.make_request("eth_getTransactionByHash", [got["hash"]])["result"]
    (auth,) = raw["authorizationList"]
    assert set(auth) == {"chainId", "address", "nonce", "yParity", "r", "s"}
    assert raw["yParity"] == raw["v"] and raw["accessList"] == []


def test_an_unknown_subscription_kind_is_method_not_found(devnet: RunningNode) -> None:
    async def ask() -> Any:
        async with websockets.connect(devnet.ws) as ws:
            body = {"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["foo"]}
            await ws.send(json.dumps(body))
            return json.loads(await ws.recv())

    reply = asyncio.run(ask())
    assert reply["error"] == {
        "code": -32601,
        "message": 'no "foo" subscription in eth namespace',
    }


def test_ethers_and_viem_sign_with_the_nodes_accounts(devnet: RunningNode, w3: Web3) -> None:
    to = "0x" + "ab" * 20
    stranger = "0x" + "cd" * 20
    got = js("node_signer", devnet.rpc, DEV0, to, stranger)
    assert got["ethersMessage"] == DEV0 and got["ethersTyped"] == DEV0
    assert got["status"] == 1 and got["viemTyped"] is True
    hello = encode_defunct(text="hello")
    assert Account.recover_message(hello, signature=got["viemMessage"]) == DEV0
    signed = got["signed"]
    assert signed["from"] == DEV0 and signed["to"].lower() == to
    assert signed["hash"] == signed["txHash"] and signed["txType"] == "0x2"
    assert int(signed["txNonce"], 16) == signed["nonce"] and signed["value"] == "7"
    assert w3.eth.get_transaction(got["viemHash"])["value"] == 9
    assert w3.eth.get_balance(Web3.to_checksum_address(to)) == 14
    assert got["unknown"] == {"code": -32000, "message": "unknown account"}


TARGET = "0x" + "ee" * 20
# return sload(0)
READ_SLOT0 = bytes.fromhex("60005460005260206000f3")
# return balance(caller)
BALANCE_OF_CALLER = bytes.fromhex("333160005260206000f3")
# return (number, timestamp, coinbase, gaslimit)
BLOCK_INFO = bytes.fromhex("4360005242602052416040524560605260806000f3")


def test_viem_calls_and_estimates_with_state_and_block_overrides(devnet: RunningNode) -> None:
    codes = ["0x" + c.hex() for c in (READ_SLOT0, BALANCE_OF_CALLER, BLOCK_INFO)]
    got = js("overrides", devnet.rpc, *codes)
    assert int(got["diffed"], 16) == 42
    assert int(got["balance"], 16) == 12345
    words = bytes.fromhex(got["block"][2:])
    number, time, coinbase, gas_limit = (words[i : i + 32] for i in range(0, 128, 32))
    assert (int.from_bytes(number, "big"), int.from_bytes(time, "big")) == (1000, 1234)
    assert (
        coinbase == word(bytes.fromhex("12" * 20)) and int.from_bytes(gas_limit, "big") == 5_000_000
    )
    assert got["gas"] == "21000"
    assert got["both"] == {
        "code": -32000,
        "message": f"account {Web3.to_checksum_address(TARGET)} has both 'state' and 'stateDiff'",
    }


def test_overrides_keep_the_state_and_refuse_malformed_input(devnet: RunningNode, w3: Web3) -> None:
    target = TARGET
    overrides = {
        target: {"code": "0x" + READ_SLOT0.hex(), "state": {"0x" + "00" * 32: "0x" + "07" * 32}}
    }
    reply = rpc_reply(devnet.rpc, "eth_call", {"to": target}, "latest", overrides)
    assert reply["result"] == "0x" + "07" * 32
    assert w3.eth.get_code(Web3.to_checksum_address(target)) == b""
    bad = rpc_reply(devnet.rpc, "eth_call", {"to": target}, "latest", {target: {"balance": 5}})
    assert bad["error"]["code"] == -32602
    assert "OverrideAccount.balance of type hexutil.Big" in bad["error"]["message"]
    basefee = {target: {"code": "0x4860005260206000f3"}}  # return basefee
    block = {"baseFeePerGas": "0x64"}
    paid = rpc_reply(
        devnet.rpc,
        "eth_call",
        {"from": DEV0, "to": target, "gas": "0x10000", "gasPrice": "0x64"},
        "latest",
        basefee,
        block,
    )
    assert int(paid["result"], 16) == 100
    unpaid = rpc_reply(devnet.rpc, "eth_call", {"to": target}, "latest", basefee, block)
    assert unpaid["error"]["code"] == -32000
    blob = rpc_reply(devnet.rpc, "eth_call", {"to": target}, "latest", None, {"blobBaseFee": "0x1"})
    assert blob["result"] == "0x"  # read and without effect: C-Chain blocks carry no blobs


def _deploy(w3: Web3, runtime: bytes) -> str:
    receipt = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "data": deploy_code(runtime)})
    )
    return str(receipt["contractAddress"]).lower()


def test_viem_creates_access_lists_and_fills_transactions(devnet: RunningNode, w3: Web3) -> None:
    store, caller, reverter = (_deploy(w3, code) for code in (STORE, CALLER, REVERTER))
    got = js("access_list", devnet.rpc, store, caller, reverter, DEV0)
    slot0 = "0x" + "00" * 32
    assert got["direct"]["list"] == [{"address": store, "keys": [slot0]}]
    assert got["nested"] == [{"address": store, "keys": [slot0]}]
    listed = {"address": store, "storageKeys": [slot0]}
    call = {"from": DEV0, "to": store, "input": "0x" + word(5).hex(), "accessList": [listed]}
    gas = int(rpc_reply(devnet.rpc, "eth_estimateGas", call)["result"], 16)
    assert int(got["direct"]["gas"]) == gas
    assert got["reverted"] == "execution reverted"
    nonce = w3.eth.get_transaction_count(DEV0)
    filled = got["filled"]
    assert (filled["nonce"], filled["type"]) == (nonce, "eip1559")
    assert int(filled["gas"]) > 21_000 and int(filled["fee"]) > 0
    transfer = w3.eth.estimate_gas(
        {"from": DEV0, "to": Web3.to_checksum_address(store), "value": 1}
    )
    assert got["prepared"] == {"nonce": nonce, "gas": str(transfer), "type": "eip1559"}
    unsigned = rpc_reply(devnet.rpc, "eth_fillTransaction", {"from": DEV0, "to": store})["result"]
    assert unsigned["raw"].startswith("0x02") and unsigned["tx"]["r"] == "0x0"
    assert int(unsigned["tx"]["gas"], 16) > 21_000


@pytest.mark.parametrize(
    ("request_body", "echo"),
    [
        (
            {"jsonrpc": "1.0", "method": "health.health", "params": {"tags": []}, "id": 7},
            {"jsonrpc": "1.0", "method": "health.health", "params": {"tags": []}, "id": 7},
        ),
        (
            {"method": "health.liveness", "id": "a"},
            {"jsonrpc": "", "method": "health.liveness", "params": None, "id": "a"},
        ),
        ({"jsonrpc": 2, "method": 5}, {"jsonrpc": "", "method": "", "params": None, "id": None}),
    ],
)
def test_a_wrong_jsonrpc_version_is_echoed_as_gorilla_does(
    devnet: RunningNode, request_body: dict[str, Any], echo: dict[str, Any]
) -> None:
    response = httpx.post(devnet.base + "/ext/health", json=request_body)
    assert response.status_code == 200
    assert response.json() == {
        "jsonrpc": "2.0",
        "error": {"code": -32600, "message": "jsonrpc must be 2.0", "data": echo},
        "id": request_body.get("id"),
    }
