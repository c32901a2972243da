"""The P-Chain's unspent UTXOs by owner (schema 23, issue 30 "Fast"): one row per address and
UTXO it owns while the UTXO is unspent and kept on the P-Chain, with what a balance needs of
it and its UTXO document as the rows render it.

Why: an address's balances and its first UTXO pages were read through every tx that ever
named the address (p_tx_addresses), a lookup of each tx's UTXOs and a LIKE on their owner
lists, spent ones included: about half of a request's time (py-spy, bench/primary_api.py),
growing with the address's history and the store. Here they are one range of a clustered
table, in the UTXO listing's order (time, then UTXO id), and a page is its documents joined as
bytes (as operation 5's pages are, store/history_pages.py).

The writer keeps it in the transaction that writes a batch of blocks: rows for the UTXOs the
batch emits (owners from the UTXO's own owner list), removed for the ones it consumes. The
P-Chain index is never unwound (store/primary_schema.py), so nothing else removes rows.
Past answers (`blockTimestamp`, `includeSpent`) still read p_utxos."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from snowfield.store import p_balance_rows, p_genesis, sql
from snowfield.store.database import Database
from snowfield.store.p_address_queries import (
    Held,
    Shape,
    UtxoFilter,
    utxo_page_params,
    utxo_page_sql,
    utxo_shape,
)
from snowfield.store.p_genesis import GenesisUtxo
from snowfield.store.p_holdings_schema import HOLDINGS_INSERT
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.primary_documents import utxo
from snowfield.store.primary_queries import (
    _UTXO_COLUMNS,
    CHAIN_TIME,
    PUtxo,
    Reads,
    _utxo,
    chain_time,
)


class _Writes(Reads, Protocol):
    def execute(self, sql: str, params: Any = ...) -> Any: ...
    def executemany(self, sql: str, rows: Any) -> None: ...


def _rows(pchain: str, avax_asset: str | None, utxos: Iterable[PUtxo]) -> list[tuple[Any, ...]]:
    out = []
    for u in utxos:
        if u.consuming_tx is not None or u.consumed_on != pchain:
            continue  # spent, or exported (held in another chain's shared memory)
        document = None if avax_asset is None else orjson.dumps(utxo(avax_asset, u)).decode()
        for address in dict.fromkeys(u.addresses):
            out.append((pchain, address, u.block_timestamp or 0, u.utxo_id, u.tx_id, u.asset_id,
                        u.amount, int(u.staked), u.stakeable_locktime, u.locktime, u.utxo_start,
                        document))  # fmt: skip
    return out


def _avax_asset(w: Reads, pchain: str) -> str | None:
    row = w.query("SELECT avax_asset FROM primary_networks WHERE pchain = ?", (pchain,))
    return None if not row else str(row[0][0])


def refresh(
    w: _Writes,
    pchain: str,
    emitted: Sequence[str],
    consumed: Sequence[str],
    ended: Sequence[str] = (),
) -> None:
    """After a batch's UTXO and staker writes: rows for the UTXOs it emitted (as the rows now
    stand: a re-written reward UTXO gets its new document), none for the ones it consumed, and
    the balance rows moved with them and with the stakers it `ended` (staking tx ids)."""
    deltas: p_balance_rows.Deltas = {}
    # In this order, each step reading the rows as the steps before left them: a UTXO held
    # before the batch is judged ended by the store now, after the stakers' writes.
    staked = p_balance_rows.staked_utxos(w, pchain, ended)
    p_balance_rows.move_ended(deltas, p_balance_rows.held(w, pchain, staked))
    p_balance_rows.add(deltas, p_balance_rows.held(w, pchain, consumed), -1)
    for chunk in sql.chunks(sorted(set(consumed))):
        w.execute(
            f"DELETE FROM p_holdings WHERE pchain = ? AND utxo_id IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        )
    new = _hold(w, pchain, emitted)
    p_balance_rows.add(deltas, p_balance_rows.held(w, pchain, new), 1)
    p_balance_rows.apply(w, pchain, deltas)
    fill_documents(w, pchain)


def _hold(w: _Writes, pchain: str, emitted: Sequence[str]) -> list[str]:
    """Rows for these UTXOs (rewritten where present); the ids held for the first time."""
    avax_asset = _avax_asset(w, pchain)
    new = []
    for chunk in sql.chunks(sorted(set(emitted))):
        before = {
            str(r[0])
            for r in w.query(
                f"SELECT utxo_id FROM p_holdings WHERE pchain = ? AND utxo_id IN"
                f" {sql.in_list(chunk)}",
                [pchain, *chunk],
            )
        }
        found = w.query(
            f"SELECT {_UTXO_COLUMNS} FROM p_utxos WHERE pchain = ?"
            f" AND utxo_id IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        )
        rows = _rows(pchain, avax_asset, (_utxo(r) for r in found))
        w.executemany(HOLDINGS_INSERT, rows)
        new += sorted({r[3] for r in rows} - before)
    return new


def fill_documents(w: _Writes, pchain: str, limit: int = 5_000) -> int:
    """Documents for up to `limit` rows an upgrade left without one (p_holdings_schema.py), in
    the writer's transaction, a batch at a time; how many were filled."""
    avax_asset = _avax_asset(w, pchain)
    if avax_asset is None:
        return 0
    ids = [
        str(r[0])
        for r in w.query(
            "SELECT DISTINCT utxo_id FROM p_holdings WHERE pchain = ? AND document IS NULL"
            f" LIMIT {int(limit)}",
            (pchain,),
        )
    ]
    for chunk in sql.chunks(sorted(ids)):
        found = w.query(
            f"SELECT {_UTXO_COLUMNS} FROM p_utxos WHERE pchain = ?"
            f" AND utxo_id IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        )
        w.executemany(HOLDINGS_INSERT, _rows(pchain, avax_asset, (_utxo(r) for r in found)))
    return len(ids)


_BALANCE_COLUMNS = (
    "asset_id, staked, staker_ended, utxo_start, stakeable_locktime, locktime, amount, utxo_count"
)


def _balance_rows(
    db: Reads, pchain: str, address: str, more: str = "", more_params: Sequence[Any] = ()
) -> list[Any]:
    """One address's balance rows (asset, staked, ended, start, locks, amount, count), then
    the `more` columns (their `more_params` bind first: the columns precede the FROM clause)."""
    return db.query(
        f"SELECT {_BALANCE_COLUMNS}{more} FROM p_balance_rows WHERE pchain = ? AND address = ?",
        (*more_params, pchain, address),
    )


def _held_of(rows: Iterable[Sequence[Any]]) -> list[Held]:
    return [
        Held(str(asset), int(amount), bool(staked), lock, plain, start, bool(ended), int(n))
        for asset, staked, ended, start, lock, plain, amount, n, *_ in rows
    ]


def held_now(db: Database, pchain: str, addresses: Sequence[str]) -> tuple[list[Held], int | None]:
    """What these addresses hold now, as p_address_queries.held_utxos gives it (one address:
    its balance rows; more: their UTXOs, each once), and the chain time their kinds are judged
    at (one store call)."""
    out = held(db, pchain, addresses)
    return out, chain_time(db, pchain) if any(map(locked, out)) else None


def held(db: Database, pchain: str, addresses: Sequence[str]) -> list[Held]:
    """What these addresses hold now: one address, its balance rows; more, their UTXOs (each
    once)."""
    if len(addresses) == 1:
        return _held_of(_balance_rows(db, pchain, addresses[0]))
    return _held_utxos(db, pchain, addresses)


@dataclass(frozen=True, slots=True)
class HeldNow:
    held: list[Held]
    owns_genesis: bool  # the owners own a genesis UTXO (spent or not)
    chain_time: int | None  # the P-Chain's time (chain_time), read with them


_FLAGS = f", {p_genesis.owns_clause(1)}, {CHAIN_TIME}"


def held_with_flags(db: Database, pchain: str, addresses: Sequence[str]) -> HeldNow | None:
    """`held`, with whether the owners own a genesis UTXO and the chain time, in one statement
    (scalar subqueries as columns, run once): each statement more cost a balance ~25 us on
    SQLite (bench/primary_api.py); None when they hold nothing (no row to carry the flags)."""
    if len(addresses) != 1:
        return None  # their UTXOs, each once: `held`
    rows = _balance_rows(db, pchain, addresses[0], _FLAGS, (pchain, *addresses, pchain))
    if not rows:
        return None
    now = rows[0][-1]
    return HeldNow(_held_of(rows), bool(rows[0][-2]), None if now is None else int(now))


def locked(u: Held) -> bool:
    """Whether the kind of `u` depends on the time it is judged at (p_address_queries.p_kind)."""
    return bool(u.staked or u.stakeable_locktime or u.locktime)


def _held_utxos(db: Database, pchain: str, addresses: Sequence[str]) -> list[Held]:
    rows = db.query(
        "SELECT h.utxo_id, h.asset_id, h.amount, h.staked, h.stakeable_locktime, h.locktime,"
        " h.utxo_start, CASE WHEN s.ended_tx IS NOT NULL THEN 1 ELSE 0 END FROM p_holdings h"
        " LEFT JOIN p_stakers s ON h.staked = 1 AND s.pchain = h.pchain AND s.tx_id = h.tx_id"
        f" WHERE h.pchain = ? AND h.address IN {sql.in_list(addresses)}",
        [pchain, *addresses],
    )
    seen: set[str] = set()
    out = []
    for utxo_id, asset, amount, staked, lock, plain, start, ended in rows:
        if utxo_id in seen:
            continue
        seen.add(utxo_id)
        out.append(Held(str(asset), int(amount), bool(staked), lock, plain, start, bool(ended)))
    return out


def utxo_documents(
    db: Database,
    pchain: str,
    addresses: Sequence[str],
    f: UtxoFilter,
    after: Key | None,
    limit: int,
) -> Page[tuple[Any, ...]] | None:
    """p_address_queries.utxo_page's page of unspent UTXOs (the same keys and order), as rows
    of (*key, document bytes); None where a document is missing (render from p_utxos)."""
    found = _documents(db, pchain, addresses, f, after, limit, genesis=False)
    return None if found is None else found[0]


def _documents(
    db: Database,
    pchain: str,
    addresses: Sequence[str],
    f: UtxoFilter,
    after: Key | None,
    limit: int,
    *,
    genesis: bool,
) -> tuple[Page[tuple[Any, ...]], bool] | None:
    """`utxo_documents`' page and (with `genesis`) whether the owners own a genesis UTXO, as
    one statement: the flag is a column (an uncorrelated subquery, run once), so a page with
    rows needs no second statement (each costs a request ~25 us on SQLite, bench/primary_api.py);
    an empty page says nothing of the flag (False)."""
    assert not f.include_spent  # spent UTXOs are in p_utxos only
    shape = utxo_shape(f, after)
    statement = _documents_sql(db.dialect, len(addresses), f.by_amount, shape, genesis)
    args: list[Any] = [*((pchain, *addresses) if genesis else ()), pchain, *addresses]
    rows = db.query(statement, [*args, *utxo_page_params(f, after), limit + 1])
    owns = bool(rows) and bool(rows[0][-1]) if genesis else False
    if genesis:
        rows = [r[:-1] for r in rows]
    if any(r[-1] is None for r in rows):
        return None
    if db.dialect != "sqlite":  # PostgreSQL's text arrives as str
        rows = [(*r[:-1], r[-1].encode()) for r in rows]
    return page_of(rows, limit, lambda r: tuple(r[:-1])), owns


@functools.lru_cache(maxsize=256)
def _documents_sql(dialect: str, owners: int, by_amount: bool, shape: Shape, genesis: bool) -> str:
    """`_documents`' statement, built once per shape (for `owners` addresses)."""
    if by_amount:
        keys: tuple[str, ...] = ("LENGTH(u.amount)", "u.amount", "u.utxo_id")
    else:
        keys = ("u.block_timestamp", "u.utxo_id")
    document = "CAST(u.document AS BLOB)" if dialect == "sqlite" else "u.document"
    distinct = "DISTINCT " if owners > 1 else ""
    marks = sql.in_list(range(owners))
    flag = f", {p_genesis.owns_clause(owners)}" if genesis else ""
    return (
        f"SELECT {distinct}{', '.join(keys)}, {document}{flag} FROM p_holdings u"
        f" WHERE u.pchain = ? AND u.address IN {marks}{utxo_page_sql(shape, keys, '1 = 1')}"
    )


def owned_page(
    db: Database,
    pchain: str,
    addresses: Sequence[str],
    f: UtxoFilter,
    after: Key | None,
    limit: int,
) -> tuple[list[GenesisUtxo], Page[tuple[Any, ...]] | None]:
    """The owners' genesis allocations (p_genesis.owned) and, unless one of them is still held
    or spent UTXOs are asked for, their page of documents (`utxo_documents`): a UTXO page's
    reads in one store call (one worker-thread hop on PostgreSQL, not two), and one statement
    where the page has rows and the owners no genesis allocation (the common case)."""
    if f.include_spent:
        return p_genesis.owned(db, pchain, addresses), None
    found = _documents(db, pchain, addresses, f, after, limit, genesis=True)
    if found is not None and found[0].items and not found[1]:
        return [], found[0]
    genesis = p_genesis.owned(db, pchain, addresses)
    if any(u.consuming_tx is None for u in genesis):
        return genesis, None  # merged with the genesis rows (api/primary/p_genesis.py)
    return genesis, None if found is None else found[0]
