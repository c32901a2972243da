"""Internal transactions and contract creations from callTracer frames."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from snowfield.indexer.extract.hexnum import addr, qty
from snowfield.store.rows import ContractRow, InternalTxRow, TxRow

CALL_TYPES = {"CALL", "CREATE", "CREATE2", "DELEGATECALL", "STATICCALL", "CALLCODE"}


def _walk(frame: dict[str, Any], reverted: bool) -> Iterator[tuple[dict[str, Any], bool]]:
    """Nested frames in pre-order with whether they (or an ancestor) reverted."""
    for child in frame.get("calls") or ():
        failed = reverted or bool(child.get("error"))
        yield child, failed
        yield from _walk(child, failed)


def internal_rows(
    chain_id: int, txs: Sequence[TxRow], traces: Sequence[dict[str, Any]]
) -> list[InternalTxRow]:
    rows = []
    for tx, trace in zip(txs, traces, strict=True):
        top_failed = bool(trace.get("error"))
        for n, (frame, failed) in enumerate(_walk(trace, top_failed)):
            kind = str(frame.get("type", "")).upper()
            rows.append(
                InternalTxRow(
                    chain_id=chain_id,
                    block_number=tx.block_number,
                    tx_index=tx.tx_index,
                    trace_index=n,
                    tx_hash=tx.hash,
                    from_addr=addr(frame.get("from") or "0x" + "00" * 20),
                    to_addr=addr(frame.get("to") or "0x" + "00" * 20),
                    call_type=kind if kind in CALL_TYPES else "UNKNOWN",
                    value=qty(frame.get("value")),
                    gas_limit=qty(frame.get("gas")),
                    gas_used=qty(frame.get("gasUsed")),
                    reverted=failed,
                )
            )
    return rows


def contract_rows(
    chain_id: int, txs: Sequence[TxRow], internals: Sequence[InternalTxRow]
) -> list[ContractRow]:
    """Top-level creations (from receipts) and successful CREATE/CREATE2 frames (from traces)."""
    by_index = {tx.tx_index: tx for tx in txs}
    rows = [
        ContractRow(
            chain_id,
            tx.created,
            tx.block_number,
            tx.tx_index,
            tx.hash,
            tx.from_addr,
            None,
            "CREATE",
        )
        for tx in txs
        if tx.created is not None and tx.status == 1
    ]
    for frame in internals:
        if frame.call_type in ("CREATE", "CREATE2") and not frame.reverted:
            tx = by_index[frame.tx_index]
            rows.append(
                ContractRow(
                    chain_id,
                    frame.to_addr,
                    frame.block_number,
                    frame.tx_index,
                    frame.tx_hash,
                    tx.from_addr,
                    frame.from_addr,
                    frame.call_type,
                )
            )
    return rows
