"""The P-Chain's unspent UTXOs by owner (schema 22, issue 30 "Fast"): one row per address and
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

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import orjson

from snowfield.store import sql
from snowfield.store.database import Database
from snowfield.store.p_address_queries import Held, UtxoFilter, utxo_page_clauses
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.primary_documents import utxo
from snowfield.store.primary_queries import _UTXO_COLUMNS, PUtxo, Reads, _utxo, chain_time

_INSERT = (
    "INSERT INTO p_holdings (pchain, address, block_timestamp, utxo_id, tx_id, asset_id, amount,"
    " staked, stakeable_locktime, locktime, utxo_start, document)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (pchain, address, block_timestamp, utxo_id) DO UPDATE"
    " SET document = excluded.document"
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


def refresh(w: _Writes, pchain: str, emitted: Sequence[str], consumed: Sequence[str]) -> None:
    """After a batch's UTXO writes: rows for the UTXOs it emitted (as the rows now stand: a
    re-written reward UTXO gets its new document), none for the ones it consumed."""
    avax_asset = _avax_asset(w, pchain)
    for chunk in sql.chunks(sorted(set(emitted))):
        found = w.query(
            f"SELECT {_UTXO_COLUMNS} FROM p_utxos WHERE pchain = ?"
            f" AND utxo_id IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        )
        w.executemany(_INSERT, _rows(pchain, avax_asset, (_utxo(r) for r in found)))
    for chunk in sql.chunks(sorted(set(consumed))):
        w.execute(
            f"DELETE FROM p_holdings WHERE pchain = ? AND utxo_id IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        )


def rebuild(w: _Writes) -> None:
    """Schema 22: the rows of a store written before the table, from its unspent UTXOs, in
    key order (rows written in order fill SQLite's clustered pages)."""
    for (pchain,) in w.query("SELECT pchain FROM primary_networks"):
        avax_asset = _avax_asset(w, str(pchain))
        found = w.query(
            f"SELECT {_UTXO_COLUMNS} FROM p_utxos WHERE pchain = ? AND consuming_tx IS NULL",
            (pchain,),
        )
        rows = _rows(str(pchain), avax_asset, (_utxo(r) for r in found))
        w.executemany(_INSERT, sorted(rows, key=lambda r: (r[1], r[2], r[3])))


def held_now(db: Database, pchain: str, addresses: Sequence[str]) -> tuple[list[Held], int | None]:
    """The UTXOs these addresses hold now (each once, as p_address_queries.held_utxos gives
    them), and the chain time their kinds are judged at (one store call)."""
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
    locked = any(u.staked or u.stakeable_locktime or u.locktime for u in out)
    return out, chain_time(db, pchain) if locked else None


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
    assert not f.include_spent  # spent UTXOs are in p_utxos only
    if f.by_amount:
        keys = ["LENGTH(u.amount)", "u.amount", "u.utxo_id"]
    else:
        keys = ["u.block_timestamp", "u.utxo_id"]
    document = "CAST(u.document AS BLOB)" if db.dialect == "sqlite" else "u.document"
    distinct = "DISTINCT " if len(addresses) > 1 else ""
    args: list[Any] = [pchain, *addresses]
    clauses = utxo_page_clauses(f, keys, after, "1 = 1", args)
    rows = db.query(
        f"SELECT {distinct}{', '.join(keys)}, {document} FROM p_holdings u"
        f" WHERE u.pchain = ? AND u.address IN {sql.in_list(addresses)}{clauses}",
        [*args, limit + 1],
    )
    if any(r[-1] is None for r in rows):
        return None
    if db.dialect != "sqlite":  # PostgreSQL's text arrives as str
        rows = [(*r[:-1], r[-1].encode()) for r in rows]
    return page_of(rows, limit, lambda r: tuple(r[:-1]))


def joined(items: Sequence[bytes]) -> orjson.Fragment:
    """A JSON array of finished documents, for orjson to embed verbatim."""
    return orjson.Fragment(b"[" + b",".join(items) + b"]")
