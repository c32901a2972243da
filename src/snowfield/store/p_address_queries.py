"""Reads of the P-Chain index by address: the UTXOs an address owns (for balances and the UTXO
listings), its last activity, and the P-Chain's transactions by address, type and time.

A UTXO is found through the txs that name its owner (p_tx_addresses: one index range per
address), then kept when its own owner list holds the address. No new table is needed, and a
store written before these reads answers them unchanged."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.primary_queries import _UTXO_COLUMNS, PUtxo, _utxo

_U_COLUMNS = ", ".join(f"u.{c.strip()}" for c in _UTXO_COLUMNS.split(","))


def _marks(items: Sequence[Any]) -> str:
    return ", ".join("?" for _ in items)


def _owned(addresses: Sequence[str], joins: str = "") -> tuple[str, list[Any]]:
    """UTXOs of txs naming one of `addresses`, owned by it and kept on the P-Chain (not
    exported): a FROM clause (with `joins` after its tables) and its params. CROSS JOIN keeps
    SQLite on the address's index range first."""
    sql = (
        f" FROM p_tx_addresses a CROSS JOIN p_utxos u{joins} WHERE a.pchain = ?"
        f" AND a.address IN ({_marks(addresses)}) AND u.pchain = a.pchain AND u.tx_id = a.tx_id"
        " AND u.consumed_on = a.pchain"
        " AND (',' || u.addresses || ',') LIKE ('%,' || a.address || ',%')"
    )
    return sql, list(addresses)


# Unspent, written so that no index serves it: given `consuming_tx IS NULL`, SQLite walks
# p_utxos_by_consumer over every unspent UTXO of the chain (~0.5 s at 10k txs) instead of the
# address's txs' UTXOs.
_UNSPENT = "COALESCE(u.consuming_tx, '') = ''"


@dataclass(frozen=True, slots=True)
class Held:
    """What a balance needs of one UTXO an address holds (or of `count` alike: a balance row
    of store/p_holdings.py, `amount` their sum)."""

    asset_id: str
    amount: int
    staked: bool
    stakeable_locktime: int | None
    locktime: int | None
    start: int | None
    staker_ended: bool  # its staker was rewarded or removed by then (a stake output)
    count: int = 1


def held_utxos(
    db: Database, pchain: str, addresses: Sequence[str], at: int | None = None
) -> list[Held]:
    """The UTXOs `addresses` held at time `at` (None: now), with their stakers' end, in one
    statement (a balance is on every wallet's first screen)."""
    # The staker of a stake output; at a past time, also the tx that ended it (its time).
    joins = " LEFT JOIN p_stakers s ON u.staked = 1 AND s.pchain = u.pchain AND s.tx_id = u.tx_id"
    if at is not None:
        joins += " LEFT JOIN p_txs r ON r.pchain = s.pchain AND r.tx_id = s.ended_tx"
    where, params = _owned(addresses, joins)
    ended = "s.ended_tx IS NOT NULL" if at is None else "r.timestamp <= ?"
    distinct = "DISTINCT " if len(addresses) > 1 else ""
    sql = (
        f"SELECT {distinct}u.utxo_id, u.asset_id, u.amount, u.staked, u.stakeable_locktime,"
        f" u.locktime, u.utxo_start, CASE WHEN {ended} THEN 1 ELSE 0 END{where}"
    )
    args: list[Any] = [] if at is None else [at]
    args += [pchain, *params]
    if at is None:
        sql += f" AND {_UNSPENT}"
    else:
        sql += (
            " AND u.block_timestamp <= ? AND (u.consuming_tx IS NULL OR u.consuming_timestamp > ?)"
        )
        args += [at, at]
    return [
        Held(str(asset), int(amount), bool(staked), lock, plain, start, bool(end))
        for _, asset, amount, staked, lock, plain, start, end in db.query(sql, args)
    ]


def p_kind(u: Held, now: int) -> str:
    """Which of PChainBalance's lists a UTXO held at `now` counts in, as platform.getBalance
    and getStake judge it: a stake output while its staker is not ended, else by its locks."""
    if u.staked and not u.staker_ended:
        if u.start is not None and u.start > now:
            return "pendingStaked"
        if (u.stakeable_locktime or 0) > now:
            return "lockedStaked"
        return "unlockedStaked"
    if (u.stakeable_locktime or 0) > now:
        return "lockedStakeable"
    if (u.locktime or 0) > now:
        return "lockedPlatform"
    return "unlockedUnstaked"


@dataclass(frozen=True, slots=True)
class UtxoFilter:
    include_spent: bool
    asset_id: str | None
    min_amount: int | None
    by_amount: bool  # sortBy=amount (else timestamp)
    desc: bool


def utxo_page_clauses(
    f: UtxoFilter, keys: Sequence[str], after: Key | None, unspent: str, args: list[Any]
) -> str:
    """The filter, keyset and ORDER BY ... LIMIT ? clauses of a page of UTXOs (P- and X-Chain
    alike; `unspent` is the chain's condition for an unspent UTXO), their params appended to
    `args` (the caller appends the limit)."""
    args += utxo_page_params(f, after)
    return utxo_page_sql(utxo_shape(f, after), tuple(keys), unspent)


# What a page's SQL depends on: spent included, asset filter, amount floor, descending, the
# keyset's length (0: first page). Its values bind as params (utxo_page_params).
Shape = tuple[bool, bool, bool, bool, int]


def utxo_shape(f: UtxoFilter, after: Key | None) -> Shape:
    return (
        f.include_spent,
        f.asset_id is not None,
        f.min_amount is not None,
        f.desc,
        0 if after is None else len(after),
    )


@functools.lru_cache(maxsize=256)
def utxo_page_sql(shape: Shape, keys: tuple[str, ...], unspent: str) -> str:
    """`utxo_page_clauses`' SQL, built once per shape: a page's Python work around its one
    statement cost as much as half the statement (bench/primary_api.py's UTXO pages)."""
    include_spent, by_asset, floored, desc, keyset = shape
    sql = []
    if not include_spent:
        sql.append(f" AND {unspent}")
    if by_asset:
        sql.append(" AND u.asset_id = ?")
    if floored:
        # Decimal text without leading zeros orders as numbers by (length, text).
        sql.append(" AND (LENGTH(u.amount) > ? OR (LENGTH(u.amount) = ? AND u.amount >= ?))")
    op, order = ("<", "DESC") if desc else (">", "ASC")
    if keyset:
        sql.append(f" AND ({', '.join(keys)}) {op} ({_marks(range(keyset))})")
    sql.append(" ORDER BY " + ", ".join(f"{k} {order}" for k in keys) + " LIMIT ?")
    return "".join(sql)


def utxo_page_params(f: UtxoFilter, after: Key | None) -> list[Any]:
    """The params of `utxo_page_sql`'s clauses, in their order (the limit not included)."""
    out: list[Any] = []
    if f.asset_id is not None:
        out.append(f.asset_id)
    if f.min_amount is not None:
        floor = str(f.min_amount)
        out += [len(floor), len(floor), floor]
    if after is not None:
        out += after
    return out


def utxo_page(
    db: Database,
    pchain: str,
    addresses: Sequence[str],
    f: UtxoFilter,
    after: Key | None,
    limit: int,
) -> Page[PUtxo]:
    """A page of the UTXOs these addresses own, by time or amount, then UTXO id."""
    if f.by_amount:
        keys = ["LENGTH(u.amount)", "u.amount", "u.utxo_id"]
    else:
        keys = ["COALESCE(u.block_timestamp, 0)", "u.utxo_id"]
    where, params = _owned(addresses)
    # An ORDER BY expression of a DISTINCT select must be selected too (PostgreSQL).
    distinct = "DISTINCT " if len(addresses) > 1 else ""
    sql = [f"SELECT {distinct}{_U_COLUMNS}, {keys[0]}{where}"]
    args: list[Any] = [pchain, *params]
    sql.append(utxo_page_clauses(f, keys, after, _UNSPENT, args))
    args.append(limit + 1)
    utxos = [_utxo(r[:-1]) for r in db.query("".join(sql), args)]

    def key(u: PUtxo) -> Key:
        if f.by_amount:
            return (len(u.amount), u.amount, u.utxo_id)
        return (u.block_timestamp or 0, u.utxo_id)

    return page_of(utxos, limit, key)


@dataclass(frozen=True, slots=True)
class LastActivity:
    timestamp: int
    height: int
    tx_id: str
    utxo_id: str
    consumed: bool


def last_activity(db: Database, pchain: str, addresses: Sequence[str]) -> LastActivity | None:
    """The latest UTXO event (creation or consumption) of UTXOs these addresses own."""
    where, params = _owned(addresses)
    rows = db.query(
        "SELECT u.block_timestamp, u.block_height, u.tx_id, u.utxo_id, u.consuming_timestamp,"
        f" u.consuming_height, u.consuming_tx{where}",
        [pchain, *params],
    )
    best: LastActivity | None = None
    for made, height, tx, utxo, spent, spent_height, consumer in rows:
        events = [(made or 0, height or 0, tx, False)]
        if consumer is not None:
            events.append((spent or 0, spent_height or 0, consumer, True))
        for ts, h, tx_id, consumed in events:
            candidate = LastActivity(int(ts), int(h), str(tx_id), str(utxo), consumed)
            if best is None or (candidate.timestamp, candidate.height) > (
                best.timestamp,
                best.height,
            ):
                best = candidate
    return best


@dataclass(frozen=True, slots=True)
class TxFilter:
    addresses: Sequence[str] | None
    tx_types: Sequence[str] | None
    start: int | None
    end: int | None
    desc: bool


def tx_page(
    db: Database, pchain: str, f: TxFilter, after: Key | None, limit: int
) -> Page[tuple[str, int, int, int]]:
    """A page of P-Chain tx ids with their positions (timestamp, height, index), in time order,
    of all txs or of the txs naming these addresses."""
    op, order = ("<", "DESC") if f.desc else (">", "ASC")
    if f.addresses:
        distinct = "DISTINCT " if len(f.addresses) > 1 else ""
        sql = [
            f"SELECT {distinct}a.tx_id, a.timestamp, a.height, a.tx_index FROM p_tx_addresses a",
            " CROSS JOIN p_txs t" if f.tx_types else "",
            f" WHERE a.pchain = ? AND a.address IN ({_marks(f.addresses)})",
        ]
        args: list[Any] = [pchain, *f.addresses]
        alias = "a"
        if f.tx_types:
            sql.append(" AND t.pchain = a.pchain AND t.tx_id = a.tx_id")
    else:
        sql = ["SELECT t.tx_id, t.timestamp, t.height, t.tx_index FROM p_txs t WHERE t.pchain = ?"]
        args = [pchain]
        alias = "t"
    if f.tx_types:
        sql.append(f" AND t.tx_type IN ({_marks(f.tx_types)})")
        args += list(f.tx_types)
    if f.start is not None:
        sql.append(f" AND {alias}.timestamp >= ?")
        args.append(f.start)
    if f.end is not None:
        sql.append(f" AND {alias}.timestamp <= ?")
        args.append(f.end)
    if after is not None:
        sql.append(f" AND ({alias}.timestamp, {alias}.height, {alias}.tx_index) {op} (?, ?, ?)")
        args += list(after)
    sql.append(
        f" ORDER BY {alias}.timestamp {order}, {alias}.height {order}, {alias}.tx_index {order}"
        " LIMIT ?"
    )
    args.append(limit + 1)
    rows = [(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in db.query("".join(sql), args)]
    return page_of(rows, limit, lambda r: (r[1], r[2], r[3]))


def has_activity(db: Database, pchain: str, address: str) -> bool:
    """Whether any indexed P-Chain tx names `address`."""
    return bool(
        db.query(
            "SELECT 1 FROM p_tx_addresses WHERE pchain = ? AND address = ? LIMIT 1",
            (pchain, address),
        )
    )


def staker_states(
    db: Database, pchain: str, tx_ids: Sequence[str]
) -> dict[str, tuple[str | None, str | None]]:
    """(potential reward while current, the tx that ended it) of the staking txs among these."""
    if not tx_ids:
        return {}
    rows = db.query(
        "SELECT tx_id, potential_reward, ended_tx FROM p_stakers"
        f" WHERE pchain = ? AND tx_id IN ({_marks(tx_ids)})",
        [pchain, *tx_ids],
    )
    return {str(tx): (None if ended is not None else reward, ended) for tx, reward, ended in rows}
