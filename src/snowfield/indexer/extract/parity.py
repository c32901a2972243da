"""Parity-style traces (`trace_block`, served by anvil, Erigon, reth, Nethermind) turned into
the callTracer frame trees the rest of extraction reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CALL_TYPES = {"call": "CALL", "delegatecall": "DELEGATECALL", "staticcall": "STATICCALL",
              "callcode": "CALLCODE"}  # fmt: skip
ZERO = "0x" + "00" * 20


def frames_by_tx(traces: Sequence[dict[str, Any]], tx_count: int) -> list[dict[str, Any]]:
    """One callTracer-shaped root frame per transaction, children nested by traceAddress."""
    nodes: list[dict[tuple[int, ...], dict[str, Any]]] = [{} for _ in range(tx_count)]
    for trace in traces:
        position = trace.get("transactionPosition")
        if position is None or trace.get("type") == "reward" or not 0 <= position < tx_count:
            continue
        nodes[position][tuple(trace.get("traceAddress") or ())] = _frame(trace)
    roots = []
    for per_tx in nodes:
        for address in sorted(per_tx, key=lambda a: (len(a), a)):
            if address:
                parent = per_tx.get(address[:-1])
                if parent is not None:
                    parent.setdefault("calls", []).append(per_tx[address])
        roots.append(per_tx.get((), {}))
    return roots


def _frame(trace: dict[str, Any]) -> dict[str, Any]:
    action = trace.get("action") or {}
    result = trace.get("result") or {}
    kind = trace.get("type")
    frame: dict[str, Any]
    if kind == "create":
        method = str(action.get("creationMethod") or "create").upper()
        frame = {
            "type": method if method in ("CREATE", "CREATE2") else "CREATE",
            "from": action.get("from"),
            "to": result.get("address") or ZERO,
            "value": action.get("value", "0x0"),
        }
    elif kind == "suicide":
        frame = {
            "type": "SELFDESTRUCT",
            "from": action.get("address"),
            "to": action.get("refundAddress"),
            "value": action.get("balance", "0x0"),
        }
    else:
        frame = {
            "type": CALL_TYPES.get(str(action.get("callType", "call")), "CALL"),
            "from": action.get("from"),
            "to": action.get("to"),
            "value": action.get("value", "0x0"),
        }
    frame["gas"] = action.get("gas", "0x0")
    frame["gasUsed"] = result.get("gasUsed", "0x0")
    if trace.get("error"):
        frame["error"] = trace["error"]
    return frame
