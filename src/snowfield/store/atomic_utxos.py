"""The UTXOs in shared memory between the P-, X- and C-Chain, read whole: each with the chain
that created it, the chain it is for, its owners, and the import that took it (if one did).

An export is a row of its chain's UTXO table (p_utxos, x_utxos, c_atomic_utxos) whose
`consumed_on` is another chain; the import that took it is an x_imports or c_atomic_imports
row, or on the P-Chain the consumption written on p_utxos. Reading them at request time (not
copying them into the importing chain's tables) keeps the indexers of the three chains
independent: whichever chain's index is ahead, the join sees both halves once both are there.

The C-Chain's UTXO listing and its atomic txs' documents read them, and the X-Chain's imports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store import sql
from snowfield.store.database import Database
from snowfield.store.shared_memory import Chains, Shared


@dataclass(frozen=True, slots=True)
class AtomicUtxo:
    utxo_id: str
    tx_id: str
    output_index: int
    asset_id: str
    amount: str
    addresses: tuple[str, ...]
    threshold: int
    locktime: int
    created_on: str
    consumed_on: str
    utxo_bytes: str | None
    timestamp: int
    consuming_tx: str | None
    consuming_timestamp: int | None


# Per source chain field: (its table, its key column, its creation time column).
_SOURCES = {
    "pchain": ("p_utxos", "pchain", "block_timestamp"),
    "xchain": ("x_utxos", "xchain", "timestamp"),
    "cchain": ("c_atomic_utxos", "cchain", "timestamp"),
}


def _imports(dest: str, chains: Chains) -> str:
    """A sub-select (utxo_id, tx, time) of the UTXOs an import on `dest` took; one param."""
    if dest == chains.xchain:
        return (
            "SELECT utxo_id, tx_id AS by_tx, timestamp AS at_time FROM x_imports WHERE xchain = ?"
        )
    if dest == chains.cchain:
        return (
            "SELECT utxo_id, tx_id AS by_tx, timestamp AS at_time FROM c_atomic_imports"
            " WHERE cchain = ?"
        )
    return (
        "SELECT utxo_id, consuming_tx AS by_tx, consuming_timestamp AS at_time FROM p_utxos"
        " WHERE pchain = ? AND consuming_tx IS NOT NULL"
    )


def _select(
    db: Database,
    chains: Chains,
    source: str,
    dest: str,
    where: str,
    params: Sequence[Any],
    head: str = "",
) -> list[AtomicUtxo]:
    """The exports of chain field `source` for chain `dest` that also meet `where` (`head`:
    tables joined before the UTXO table, which `where` then names)."""
    source_id = getattr(chains, source)
    if source_id is None or source_id == dest:
        return []
    table, key, time = _SOURCES[source]
    statement = (
        "SELECT u.utxo_id, u.tx_id, u.output_index, u.asset_id, u.amount, u.addresses,"
        f" COALESCE(u.threshold, 1), COALESCE(u.locktime, 0), u.utxo_bytes, COALESCE(u.{time}, 0),"
        f" i.by_tx, i.at_time FROM {head}{table} u LEFT JOIN ({_imports(dest, chains)}) i"
        f" ON i.utxo_id = u.utxo_id WHERE u.{key} = ? AND u.consumed_on = ?{where}"
    )
    rows = db.query(statement, (dest, source_id, dest, *params))
    return [
        AtomicUtxo(
            str(r[0]), str(r[1]), int(r[2]), str(r[3]), str(r[4]),
            tuple(a for a in str(r[5]).split(",") if a), int(r[6]), int(r[7]), source_id, dest,
            None if r[8] is None else str(r[8]), int(r[9]),
            None if r[10] is None else str(r[10]), None if r[11] is None else int(r[11]),
        )
        for r in rows
    ]  # fmt: skip


def _by_owner(
    db: Database, chains: Chains, source: str, dest: str, addresses: Sequence[str]
) -> list[AtomicUtxo]:
    """`source`'s exports to `dest` that `addresses` own, found through the source chain's own
    index by owner (one index range per address, not a scan of its UTXOs): x_utxo_owners on
    the X-Chain, the txs naming the address (p_tx_addresses) on the P-Chain, the owner list
    itself on the C-Chain (its atomic exports are few)."""
    source_id = getattr(chains, source)
    if not addresses or source_id is None:
        return []
    marks = ", ".join("?" for _ in addresses)
    if source == "xchain":
        head = "x_utxo_owners o CROSS JOIN "
        where = f" AND o.xchain = ? AND o.address IN ({marks}) AND u.utxo_id = o.utxo_id"
    elif source == "pchain":
        head = "p_tx_addresses o CROSS JOIN "
        where = (
            f" AND o.pchain = ? AND o.address IN ({marks}) AND u.tx_id = o.tx_id"
            " AND (',' || u.addresses || ',') LIKE ('%,' || o.address || ',%')"
        )
    else:
        owned, params = _owned_by(addresses, db.dialect)
        return _select(db, chains, source, dest, owned, params)
    return _select(db, chains, source, dest, where, [source_id, *addresses], head)


def _owned_by(addresses: Sequence[str], dialect: str) -> tuple[str, list[str]]:
    if not addresses:
        return " AND 1 = 0", []
    likes = " OR ".join(sql.listed("u.addresses", dialect) for _ in addresses)
    return f" AND ({likes})", [f",{a}," for a in addresses]


def _in(column: str, values: Sequence[str]) -> tuple[str, list[str]]:
    if not values:
        return " AND 1 = 0", []
    return f" AND {column} IN ({', '.join('?' for _ in values)})", list(values)


def destined(db: Database, chains: Chains, dest: str, addresses: Sequence[str]) -> list[AtomicUtxo]:
    """Every UTXO the other chains exported to `dest` for these addresses, imported or not."""
    found = {
        u.utxo_id: u for source in _SOURCES for u in _by_owner(db, chains, source, dest, addresses)
    }
    return list(found.values())


def imported(db: Database, chains: Chains, dest: str, utxo_ids: Sequence[str]) -> list[AtomicUtxo]:
    """The exported UTXOs among `utxo_ids` for `dest` (those an import on `dest` names)."""
    out = []
    for i in range(0, len(utxo_ids), 500):
        where, params = _in("u.utxo_id", utxo_ids[i : i + 500])
        out += [u for source in _SOURCES for u in _select(db, chains, source, dest, where, params)]
    return out


def exported(db: Database, chains: Chains, source: str, tx_ids: Sequence[str]) -> list[AtomicUtxo]:
    """The UTXOs the txs `tx_ids` of chain field `source` exported, to whichever chain."""
    out = []
    for dest in (chains.pchain, chains.xchain, chains.cchain):
        if dest is None or dest == getattr(chains, source):
            continue
        for i in range(0, len(tx_ids), 500):
            where, params = _in("u.tx_id", tx_ids[i : i + 500])
            out += _select(db, chains, source, dest, where, params)
    return out


def taken_by(db: Database, chains: Chains, dest: str, tx_ids: Sequence[str]) -> list[AtomicUtxo]:
    """The UTXOs the imports `tx_ids` on `dest` took from shared memory (those indexed)."""
    out = []
    for i in range(0, len(tx_ids), 500):
        where, params = _in("i.by_tx", tx_ids[i : i + 500])
        out += [u for source in _SOURCES for u in _select(db, chains, source, dest, where, params)]
    return out


def shared_at(
    db: Database, chains: Chains, dest: str, addresses: Sequence[str], at: int | None
) -> list[Shared]:
    """`dest`'s atomic memory for these addresses at time `at` (None: now): what had been
    exported to it by then and no import on it had taken by then."""
    return [
        Shared(u.utxo_id, u.asset_id, int(u.amount), u.locktime, u.created_on)
        for u in destined(db, chains, dest, addresses)
        if _held_at(u, at)
    ]


def _held_at(u: AtomicUtxo, at: int | None) -> bool:
    if at is None:
        return u.consuming_tx is None
    taken = u.consuming_timestamp is not None and u.consuming_timestamp <= at
    return u.timestamp <= at and not taken
