"""Which addresses each transaction involves, in any role."""

from __future__ import annotations

from collections.abc import Sequence

from snowfield.store.rows import InternalTxRow, TransferRow, TxRow


def activity(
    txs: Sequence[TxRow], transfers: Sequence[TransferRow], internals: Sequence[InternalTxRow]
) -> tuple[tuple[str, int], ...]:
    """(address, tx_index) for senders and receivers of txs, transfers and internal txs."""
    seen: set[tuple[str, int]] = set()
    for tx in txs:
        seen.add((tx.from_addr, tx.tx_index))
        target = tx.to_addr or tx.created
        if target is not None:
            seen.add((target, tx.tx_index))
    parties: list[TransferRow | InternalTxRow] = [*transfers, *internals]
    for item in parties:
        seen.add((item.from_addr, item.tx_index))
        seen.add((item.to_addr, item.tx_index))
    return tuple(sorted(seen, key=lambda p: (p[1], p[0])))
