"""JSON-RPC 2.0 as geth serves it: batches, notifications, error codes and messages, limits."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from eth_account import Account

from snowfield.testing import RunningNode
from tests.helpers import KEY0, signed_transfer


def post(devnet: RunningNode, body: Any, **kwargs: Any) -> httpx.Response:
    return httpx.post(devnet.rpc, json=body, timeout=30, **kwargs)


def call(devnet: RunningNode, method: str, *params: Any) -> dict[str, Any]:
    reply: dict[str, Any] = post(
        devnet, {"jsonrpc": "2.0", "id": 7, "method": method, "params": list(params)}
    ).json()
    assert reply["id"] == 7 and reply["jsonrpc"] == "2.0"
    return reply


def test_batch_answers_in_order_and_skips_notifications(devnet: RunningNode) -> None:
    body = [
        {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
        {"jsonrpc": "2.0", "method": "eth_blockNumber", "params": []},
        {"jsonrpc": "2.0", "id": "b", "method": "net_version"},
    ]
    replies = post(devnet, body).json()
    assert [r["id"] for r in replies] == [1, "b"]
    assert replies[0]["result"] == "0xa868"


def test_batch_limit(devnet: RunningNode) -> None:
    body = [{"jsonrpc": "2.0", "id": i, "method": "eth_chainId"} for i in range(41)]
    (reply,) = post(devnet, body).json()
    assert reply == {
        "jsonrpc": "2.0",
        "id": 0,
        "error": {"code": -32600, "message": "batch too large"},
    }
    assert len(post(devnet, body[:40]).json()) == 40


def test_envelope_errors(devnet: RunningNode) -> None:
    reply = httpx.post(
        devnet.rpc, content=b"{nope", headers={"content-type": "application/json"}
    ).json()
    assert reply["error"] == {"code": -32700, "message": "parse error"} and reply["id"] is None
    assert post(devnet, []).json()["error"] == {"code": -32600, "message": "empty batch"}
    assert post(devnet, {"jsonrpc": "2.0", "id": 1}).json()["error"]["code"] == -32600
    assert post(devnet, [1]).json()[0]["error"]["code"] == -32600
    only_notifications = post(devnet, {"jsonrpc": "2.0", "method": "eth_chainId"})
    assert only_notifications.status_code == 200 and only_notifications.content == b""


def test_method_and_param_errors(devnet: RunningNode) -> None:
    err = call(devnet, "eth_nope")["error"]
    assert err == {"code": -32601, "message": "the method eth_nope does not exist/is not available"}
    err = call(devnet, "eth_getBalance", "0x12", "latest")["error"]
    assert err["code"] == -32602
    assert (
        err["message"] == "invalid argument 0: hex string has length 2, want 40 for common.Address"
    )
    err = call(devnet, "eth_getBalance", "f39fd6e51aad88f6f4ce6ab8827279cfffb92266")["error"]
    assert err["message"] == "invalid argument 0: hex string without 0x prefix"
    err = call(devnet, "eth_getBlockByNumber", "0x01", False)["error"]
    assert err["message"] == "invalid argument 0: hex number with leading zero digits"
    err = call(devnet, "eth_getBlockByNumber")["error"]
    assert err["message"] == "missing value for required argument 0"
    err = call(devnet, "eth_chainId", 1)["error"]
    assert err["message"] == "too many arguments, want at most 0"
    err = post(
        devnet, {"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": {"a": 1}}
    ).json()["error"]
    assert err == {"code": -32602, "message": "non-array args"}
    assert (
        call(devnet, "eth_getBalance", "0x" + "00" * 20, "0xffffff")["error"]["message"]
        == "header not found"
    )
    assert call(devnet, "eth_getBlockByNumber", "0xffffff", False)["result"] is None


def raw_tx(nonce: int, key: Any = KEY0, **fields: Any) -> str:
    return signed_transfer(nonce, to="0x" + "22" * 20, key=key, **fields)


def test_transaction_rejections_have_geth_messages(devnet: RunningNode) -> None:
    nonce = int(
        call(devnet, "eth_getTransactionCount", Account.from_key(KEY0).address, "pending")[
            "result"
        ],
        16,
    )
    assert "result" in call(devnet, "eth_sendRawTransaction", raw_tx(nonce))
    err = call(devnet, "eth_sendRawTransaction", raw_tx(nonce))["error"]
    assert err["code"] == -32000 and err["message"] in (
        "already known",
        f"nonce too low: next nonce {nonce + 1}, tx nonce {nonce}",
    )
    err = call(devnet, "eth_sendRawTransaction", raw_tx(nonce, value=2))["error"]
    assert err["message"] == f"nonce too low: next nonce {nonce + 1}, tx nonce {nonce}"
    err = call(devnet, "eth_sendRawTransaction", raw_tx(nonce + 1, gas=20000))["error"]
    assert err["message"] == "intrinsic gas too low: gas 20000, minimum needed 21000"
    err = call(devnet, "eth_sendRawTransaction", raw_tx(nonce + 1, chainId=1))["error"]
    assert err["message"] == "invalid chain id for signer: have 1 want 43112"
    poor = Account.create()
    err = call(devnet, "eth_sendRawTransaction", raw_tx(0, key=poor.key))["error"]
    assert err["message"].startswith(
        f"insufficient funds for gas * price + value: address {poor.address.lower()}"
    )
    err = call(devnet, "eth_sendRawTransaction", "0x1234")["error"]
    assert err["code"] == -32000
    err = call(
        devnet, "eth_sendRawTransaction", raw_tx(nonce + 1, maxFeePerGas=1, maxPriorityFeePerGas=1)
    )["error"]
    assert err["message"].startswith("max fee per gas less than block base fee")


def test_request_size_limit_and_content_type(devnet: RunningNode) -> None:
    big = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "web3_sha3",
        "params": ["0x" + "00" * (6 * 1024 * 1024)],
    }
    assert post(devnet, big).status_code == 413
    wrong = httpx.post(devnet.rpc, content=b"{}", headers={"content-type": "text/plain"})
    assert wrong.status_code == 415
    assert httpx.get(devnet.rpc).status_code == 405


def test_unknown_chain_is_404_and_blockchain_id_alias_works(devnet: RunningNode) -> None:
    assert httpx.post(devnet.base + "/ext/bc/Z/rpc", json={}).status_code == 404
    alias = devnet.base + f"/ext/bc/{devnet.node.ids.c_chain}/rpc"
    reply = httpx.post(alias, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"}).json()
    assert reply["result"] == "0xa868"


@pytest.mark.parametrize(
    "method,params",
    [
        ("eth_getLogs", [{"fromBlock": "0x0", "topics": [[None]] * 5}]),
        ("eth_call", [{"data": "0x1", "to": "0x" + "00" * 20}]),
        ("eth_feeHistory", ["0x1", "latest", [90, 10]]),
        ("debug_traceTransaction", ["0x" + "00" * 32, {}]),
        ("eth_getStorageAt", ["0x" + "00" * 20, "0x" + "00" * 33]),
    ],
)
def test_bad_inputs_never_crash(devnet: RunningNode, method: str, params: list[Any]) -> None:
    reply = call(devnet, method, *params)
    assert "error" in reply and reply["error"]["code"] in (-32602, -32000)
    assert call(devnet, "eth_chainId")["result"] == "0xa868"
