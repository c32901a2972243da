"""What the indexer reads back of native balances: each address's latest row before a block."""

from __future__ import annotations

from collections.abc import Iterable

from snowfield.store.database import Database


def latest_balances(
    db: Database, chain_id: int, addresses: Iterable[str], before: int
) -> dict[str, int]:
    """address → balance of its newest row below block `before` (absent: no row yet)."""
    wanted = sorted(set(addresses))
    found: dict[str, int] = {}
    for i in range(0, len(wanted), 400):
        part = wanted[i : i + 400]
        rows = db.query(
            "SELECT b.address, b.balance FROM balances b WHERE b.chain_id = ? AND b.address IN"
            f" ({', '.join('?' * len(part))}) AND b.block_number = (SELECT MAX(block_number)"
            " FROM balances WHERE chain_id = b.chain_id AND address = b.address"
            " AND block_number < ?)",
            (chain_id, *part, before),
        )
        found.update((str(a), int(v)) for a, v in rows)
    return found
