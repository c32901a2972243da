"""The P-Chain's genesis allocations (schema 22). The genesis state's UTXOs (tx id empty, index
= position) come from no block, and the node serves no list of them: only `platform.getUTXOs`
by address. So the indexer asks the node about each address it meets (the owners of the
X-Chain's genesis allocations, which a genesis funds on P too, and every address a P-Chain tx
names, once), and keeps the genesis UTXOs it is told about: `p_genesis_utxos`.

A genesis UTXO spent by an indexed tx has the spend's row in p_utxos (what the input said of it,
with its consumer): reads join the two. One spent before its owner was first asked is not
returned by the node; it then stays only that spend row (no owner), as before.

`p_genesis_probes` are the addresses asked; `p_genesis_cursor` the height of p_tx_addresses
read through. Neither is block-derived: an unwind leaves them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store import sql
from snowfield.store.database import Database
from snowfield.store.p_genesis_schema import OWNER_INSERT, owner_rows
from snowfield.store.primary_rows import UtxoRow

__all__ = ["GenesisUtxo", "owned", "owns_clause", "unprobed", "write_probed"]


def unprobed(db: Database, pchain: str, xchain: str | None) -> tuple[list[str], int] | None:
    """The addresses not asked yet (the X-Chain's genesis owners, those the P-Chain blocks past
    the cursor named), and the height the cursor moves to once they are; None when no block
    came since."""
    row = db.query_one("SELECT height FROM p_genesis_cursor WHERE pchain = ?", (pchain,))
    cursor = -1 if row is None else int(row[0])
    top_row = db.query_one("SELECT MAX(height) FROM p_blocks WHERE pchain = ?", (pchain,))
    top = -1 if top_row is None or top_row[0] is None else int(top_row[0])
    if top <= cursor:
        return None
    found: dict[str, None] = {}
    if xchain is not None and cursor < 0:
        for r in db.query(
            "SELECT address FROM x_utxo_owners WHERE xchain = ? AND idx = -1", (xchain,)
        ):
            found[str(r[0])] = None
    for r in db.query(
        "SELECT DISTINCT address FROM p_tx_addresses WHERE pchain = ? AND height > ?"
        " AND height <= ?",
        (pchain, cursor, top),
    ):
        found[str(r[0])] = None
    candidates = list(found)
    asked: set[str] = set()
    for i in range(0, len(candidates), 500):
        chunk = candidates[i : i + 500]
        asked.update(
            str(r[0])
            for r in db.query(
                "SELECT address FROM p_genesis_probes WHERE pchain = ?"
                f" AND address IN ({', '.join('?' for _ in chunk)})",
                (pchain, *chunk),
            )
        )
    return [a for a in candidates if a not in asked], top


def write_probed(
    db: Database,
    pchain: str,
    utxos: Sequence[UtxoRow],
    asked: Sequence[str],
    cursor: int | None,
) -> None:
    """What asking `asked` found; the cursor moves (to `cursor`) once every address is asked."""
    with db.transaction() as w:
        w.executemany(
            "INSERT INTO p_genesis_utxos (pchain, utxo_id, tx_id, output_index, asset_id,"
            " amount, addresses, threshold, locktime, stakeable_locktime, utxo_bytes)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, utxo_id) DO NOTHING",
            [
                (
                    pchain, u.utxo_id, u.tx_id, u.output_index, u.asset_id, str(u.amount),
                    ",".join(u.addresses), u.threshold, u.locktime, u.stakeable_locktime,
                    u.utxo_bytes,
                )
                for u in utxos
            ],
        )  # fmt: skip
        w.executemany(
            OWNER_INSERT,
            [o for u in utxos for o in owner_rows(pchain, u.utxo_id, ",".join(u.addresses))],
        )
        w.executemany(
            "INSERT INTO p_genesis_probes (pchain, address) VALUES (?, ?)"
            " ON CONFLICT (pchain, address) DO NOTHING",
            [(pchain, a) for a in asked],
        )
        if cursor is not None:
            w.execute(
                "INSERT INTO p_genesis_cursor (pchain, height) VALUES (?, ?)"
                " ON CONFLICT (pchain) DO UPDATE SET height = excluded.height",
                (pchain, cursor),
            )


@dataclass(frozen=True, slots=True)
class GenesisUtxo:
    utxo_id: str
    tx_id: str
    output_index: int
    asset_id: str
    amount: str
    addresses: tuple[str, ...]
    threshold: int
    locktime: int
    stakeable_locktime: int | None
    utxo_bytes: str
    timestamp: int  # the genesis time
    consuming_tx: str | None
    consuming_height: int | None
    consuming_timestamp: int | None


def owned(db: Database, pchain: str, addresses: Sequence[str]) -> list[GenesisUtxo]:
    """The genesis UTXOs these addresses own, spent or not (by utxo id)."""
    if not addresses:
        return []
    rows = db.query(
        "SELECT g.utxo_id, g.tx_id, g.output_index, g.asset_id, g.amount, g.addresses,"
        " g.threshold, g.locktime, g.stakeable_locktime, g.utxo_bytes,"
        " (SELECT b.timestamp FROM p_blocks b WHERE b.pchain = g.pchain AND b.height = 0),"
        " s.consuming_tx, s.consuming_height, s.consuming_timestamp"
        " FROM p_genesis_utxos g LEFT JOIN p_utxos s ON s.pchain = g.pchain"
        " AND s.utxo_id = g.utxo_id AND s.consuming_tx IS NOT NULL"
        " WHERE g.pchain = ? AND g.utxo_id IN (SELECT o.utxo_id FROM p_genesis_owners o"
        f" WHERE o.pchain = ? AND o.address IN {sql.in_list(addresses)}) ORDER BY g.utxo_id",
        [pchain, pchain, *addresses],
    )
    return [_genesis(r) for r in rows]


def owns_clause(owners: int) -> str:
    """An SQL condition: whether `owners` addresses own a genesis UTXO (spent or not); its
    params are the P-Chain id, then the addresses."""
    return (
        "EXISTS (SELECT 1 FROM p_genesis_owners o WHERE o.pchain = ?"
        f" AND o.address IN {sql.in_list(range(owners))})"
    )


def _genesis(r: Sequence[Any]) -> GenesisUtxo:
    return GenesisUtxo(
        str(r[0]), str(r[1]), int(r[2]), str(r[3]), str(r[4]),
        tuple(a for a in str(r[5]).split(",") if a), int(r[6]), int(r[7]),
        None if r[8] is None else int(r[8]), str(r[9]), int(r[10] or 0),
        None if r[11] is None else str(r[11]), None if r[12] is None else int(r[12]),
        None if r[13] is None else int(r[13]),
    )  # fmt: skip
