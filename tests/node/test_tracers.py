"""geth's tracers through web3.py's debug API: the struct logger and its options, callTracer
with logs, prestateTracer (and diffMode), 4byteTracer."""

from __future__ import annotations

from typing import Any

import pytest
from web3 import Web3
from web3.exceptions import Web3RPCError

from tests.bytecode import CALLER, REVERTER, STORE, STORE_TOPIC, deploy_code, word

DEV0 = Web3.to_checksum_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")


# log0(0, 0); revert(0, 0)
LOG_THEN_REVERT = bytes.fromhex("60006000a060006000fd")


def deploy(w3: Web3, runtime: bytes) -> str:
    tx = w3.eth.send_transaction({"from": DEV0, "data": deploy_code(runtime)})
    return str(w3.eth.wait_for_transaction_receipt(tx)["contractAddress"])


@pytest.fixture(scope="module")
def contracts(w3: Web3) -> dict[str, str]:
    return {"store": deploy(w3, STORE), "caller": deploy(w3, CALLER), "rev": deploy(w3, REVERTER)}


def call_through(w3: Web3, contracts: dict[str, str], target: str, value: int = 0) -> Any:
    """caller → target; returns the mined transaction's hash."""
    data = word(bytes.fromhex(contracts[target][2:]))
    tx = w3.eth.send_transaction(
        {"from": DEV0, "to": contracts["caller"], "data": data, "value": value, "gas": 300_000}
    )
    assert w3.eth.wait_for_transaction_receipt(tx)["status"] == 1
    return tx


def test_struct_logger_steps_and_options(w3: Web3, contracts: dict[str, str]) -> None:
    tx = call_through(w3, contracts, "store", value=3)
    trace = w3.geth.debug.trace_transaction(tx)
    logs = trace["structLogs"]
    assert (
        trace["failed"] is False and trace["gas"] == w3.eth.get_transaction_receipt(tx)["gasUsed"]
    )
    assert trace["returnValue"] == "0x" + word(1).hex()
    assert logs[0]["pc"] == 0 and logs[0]["depth"] == 1 and logs[0]["stack"] == []
    call = next(step for step in logs if step["op"] == "CALL")
    callee = logs[logs.index(call) + 1]
    assert callee["depth"] == 2 and callee["pc"] == 0 and call["gasCost"] > callee["gas"]
    sstore = next(step for step in logs if step["op"] == "SSTORE")
    assert sstore["storage"] == {"0x" + "00" * 32: "0x" + "00" * 32}
    assert all(step["gas"] - step["gasCost"] >= 0 for step in logs)
    assert "memory" not in call and "returnData" not in logs[-1]

    full = w3.geth.debug.trace_transaction(
        tx, {"enableMemory": True, "enableReturnData": True, "disableStack": True}
    )["structLogs"]
    assert all("stack" not in step for step in full)
    assert full[-1]["returnData"] == "0x" + word(0).hex()  # what the callee returned
    assert any(step.get("memory") for step in full)
    assert all(len(w) == 66 and w.startswith("0x") for s in full for w in s.get("memory", []))
    bare = w3.geth.debug.trace_transaction(tx, {"disableStorage": True})["structLogs"]
    assert all("storage" not in step for step in bare)
    limited = w3.provider.make_request("debug_traceTransaction", [tx.to_0x_hex(), {"limit": 5}])
    assert len(limited["result"]["structLogs"]) == 5


def test_struct_logger_on_a_failed_transaction_and_a_block(
    w3: Web3, contracts: dict[str, str]
) -> None:
    tx = w3.eth.send_transaction({"from": DEV0, "to": contracts["rev"], "gas": 100_000})
    receipt = w3.eth.wait_for_transaction_receipt(tx)
    assert receipt["status"] == 0
    trace = w3.geth.debug.trace_transaction(tx)
    assert trace["failed"] is True and trace["structLogs"][-1]["op"] == "REVERT"
    assert trace["returnValue"].startswith("0x08c379a0")
    block = w3.provider.make_request("debug_traceBlockByNumber", [hex(receipt["blockNumber"])])
    (item,) = block["result"]
    assert item["txHash"] == tx.to_0x_hex() and item["result"]["failed"] is True
    by_hash = w3.provider.make_request("debug_traceBlockByHash", [receipt["blockHash"].to_0x_hex()])
    assert by_hash["result"] == block["result"]


def test_call_tracer_with_logs(w3: Web3, contracts: dict[str, str]) -> None:
    tx = call_through(w3, contracts, "store")
    plain = w3.geth.debug.trace_transaction(tx, {"tracer": "callTracer"})
    assert "logs" not in plain["calls"][0]
    trace = w3.geth.debug.trace_transaction(
        tx, {"tracer": "callTracer", "tracerConfig": {"withLog": True}}
    )
    (inner,) = trace["calls"]
    (log,) = inner["logs"]
    assert log["address"] == Web3.to_checksum_address(contracts["store"])
    assert log["topics"] == [STORE_TOPIC] and log["data"] == word(0)
    assert log["position"] == 0 and "logs" not in trace
    raw = w3.provider.make_request(
        "debug_traceTransaction",
        [tx.to_0x_hex(), {"tracer": "callTracer", "tracerConfig": {"withLog": True}}],
    )["result"]
    assert raw["calls"][0]["logs"][0]["index"] == "0x0"
    top = w3.geth.debug.trace_transaction(
        tx, {"tracer": "callTracer", "tracerConfig": {"onlyTopCall": True}}
    )
    assert "calls" not in top


def test_call_tracer_drops_the_logs_of_a_failed_frame(w3: Web3, contracts: dict[str, str]) -> None:
    contracts = {**contracts, "logrev": deploy(w3, LOG_THEN_REVERT)}
    tx = call_through(w3, contracts, "logrev")
    config = {"tracer": "callTracer", "tracerConfig": {"withLog": True}}
    (inner,) = w3.geth.debug.trace_transaction(tx, config)["calls"]
    assert inner["error"] == "execution reverted" and "logs" not in inner


def test_prestate_tracer_and_diff_mode(w3: Web3, contracts: dict[str, str]) -> None:
    store = contracts["store"]
    first = w3.eth.send_transaction({"from": DEV0, "to": store, "data": word(7)})
    w3.eth.wait_for_transaction_receipt(first)
    tx = w3.eth.send_transaction({"from": DEV0, "to": store, "data": word(9)})
    w3.eth.wait_for_transaction_receipt(tx)
    pre = w3.geth.debug.trace_transaction(tx, {"tracer": "prestateTracer"})
    slot = "0x" + "00" * 32
    store_key = Web3.to_checksum_address(store)
    assert pre[store_key]["storage"] == {slot: "0x" + word(7).hex()}
    assert pre[store_key]["code"] == "0x" + STORE.hex()
    assert pre[DEV0]["balance"] > 0 and pre[DEV0]["nonce"] >= 1
    diff = w3.geth.debug.trace_transaction(
        tx, {"tracer": "prestateTracer", "tracerConfig": {"diffMode": True}}
    )
    assert diff["post"][store_key] == {"storage": {slot: "0x" + word(9).hex()}}
    assert diff["pre"][store_key]["storage"] == {slot: "0x" + word(7).hex()}
    assert diff["post"][DEV0]["nonce"] == diff["pre"][DEV0]["nonce"] + 1
    assert diff["post"][DEV0]["balance"] < diff["pre"][DEV0]["balance"]
    with pytest.raises(Web3RPCError, match="cannot use diffMode with includeEmpty"):
        w3.geth.debug.trace_transaction(
            tx,
            {"tracer": "prestateTracer", "tracerConfig": {"diffMode": True, "includeEmpty": True}},
        )


def test_four_byte_tracer(w3: Web3, contracts: dict[str, str]) -> None:
    tx = w3.eth.send_transaction(
        {"from": DEV0, "to": contracts["store"], "data": "0x12345678" + "00" * 8}
    )
    w3.eth.wait_for_transaction_receipt(tx)
    assert w3.geth.debug.trace_transaction(tx, {"tracer": "4byteTracer"}) == {"0x12345678-8": 1}
    nested = call_through(w3, contracts, "store")  # 32 bytes to caller, none to the store
    counts = w3.geth.debug.trace_transaction(nested, {"tracer": "4byteTracer"})
    assert counts == {"0x00000000-28": 1}


def test_unknown_tracer_is_refused(w3: Web3, contracts: dict[str, str]) -> None:
    tx = call_through(w3, contracts, "store")
    answer = w3.provider.make_request("debug_traceTransaction", [tx.to_0x_hex(), {"tracer": "x"}])
    assert answer["error"]["code"] == -32602 and "callTracer" in answer["error"]["message"]
    answer = w3.provider.make_request(
        "debug_traceTransaction", [tx.to_0x_hex(), {"enableMemory": "yes"}]
    )
    assert answer["error"]["code"] == -32602


# NUMBER, TIMESTAMP returned as two words
BLOCK_INFO = bytes.fromhex("4360005242602052" + "60406000f3")


def trace_call(w3: Web3, call: dict[str, Any], config: dict[str, Any]) -> Any:
    answer = w3.provider.make_request("debug_traceCall", [call, "latest", config])
    assert "result" in answer, answer
    return answer["result"]


def test_trace_call_matches_the_transaction(w3: Web3, contracts: dict[str, str]) -> None:
    call = {"from": DEV0, "to": contracts["store"], "data": "0x" + word(77).hex()}
    trace = trace_call(w3, call, {})
    sstore = next(step for step in trace["structLogs"] if step["op"] == "SSTORE")
    assert sstore["storage"] == {"0x" + "00" * 32: "0x" + word(77).hex()}
    frame = trace_call(w3, call, {"tracer": "callTracer", "tracerConfig": {"withLog": True}})
    tx = w3.eth.send_transaction(call)
    receipt = w3.eth.wait_for_transaction_receipt(tx)
    assert trace["gas"] == receipt["gasUsed"] and trace["failed"] is False
    assert frame["gasUsed"] == hex(receipt["gasUsed"]) and frame["logs"][0]["position"] == "0x0"
    reverted = trace_call(w3, {"from": DEV0, "to": contracts["rev"]}, {"tracer": "callTracer"})
    assert reverted["error"] == "execution reverted" and reverted["revertReason"] == "boom"
    call = {**call, "gas": "0x5208"}  # 21000: less than the call data's intrinsic gas
    short = w3.provider.make_request("debug_traceCall", [call, "latest"])
    assert short["error"]["message"].startswith("intrinsic gas too low: have 21000, want 21")


def test_trace_call_with_state_and_block_overrides(w3: Web3) -> None:
    target = "0x" + "ab" * 20
    config: dict[str, Any] = {
        "tracer": "callTracer",
        "stateOverrides": {target: {"code": "0x" + BLOCK_INFO.hex()}},
        "blockOverrides": {"number": "0x1234", "time": "0x5678"},
    }
    frame = trace_call(w3, {"from": DEV0, "to": target}, config)
    assert frame["output"] == "0x" + word(0x1234).hex() + word(0x5678).hex()
    rich = "0x" + "cd" * 20
    config = {
        "tracer": "prestateTracer",
        "stateOverrides": {
            rich: {"balance": "0x64", "nonce": "0x7"},
            target: {"code": "0x" + STORE.hex(), "stateDiff": {"0x0": "0x" + word(5).hex()}},
        },
    }
    pre = trace_call(w3, {"from": rich, "to": target, "data": "0x" + word(1).hex()}, config)
    assert pre[rich] == {"balance": "0x64", "nonce": 7}
    assert pre[target]["storage"] == {"0x" + "00" * 32: "0x" + word(5).hex()}
    bad = w3.provider.make_request(
        "debug_traceCall",
        [
            {"from": DEV0, "to": target},
            "latest",
            {"stateOverrides": {target: {"state": {}, "stateDiff": {}}}},
        ],
    )
    assert "has both 'state' and 'stateDiff'" in bad["error"]["message"]


def test_struct_logger_refund_counter(w3: Web3, contracts: dict[str, str]) -> None:
    store = contracts["store"]
    for value in (5, 0):  # clearing a slot set before this transaction refunds 4800
        tx = w3.eth.send_transaction({"from": DEV0, "to": store, "data": word(value)})
        w3.eth.wait_for_transaction_receipt(tx)
    logs = w3.geth.debug.trace_transaction(tx)["structLogs"]
    at = next(i for i, step in enumerate(logs) if step["op"] == "SSTORE")
    assert all("refund" not in step for step in logs[: at + 1])
    assert all(step["refund"] == 4800 for step in logs[at + 1 :])
