"""Operation 5's page as JSON bytes from the read model's stored documents
(store/read_model.py): one query reads each entry's `nativeTransaction` and its sub-lists, and
the body is their bytes joined, `{"nativeTransaction":…,` + the sub-lists' members per item.
No document is decoded, parsed or re-serialized on the request path; on SQLite both are read
as BLOBs (bytes, with no UTF-8 decode into a str and encode back).

A row whose documents are missing (NULL: see read_model.py) makes the page None; the caller
then renders that page from the rows.

The layout (schema 19 on SQLite, 27 on PostgreSQL; issue 34). Each address_txs row carries a
copy of its transaction's `nativeTransaction` (`native_document`), so a page is one range read
of the clustered table on SQLite, and one index range with a heap row per entry on PostgreSQL
(no join into `transactions`). On PostgreSQL (bench/history_layout.py --pg, the same rows
written by `write_batch`, address_txs with and without the copies in one schema, rounds
interleaved, quiet machine): the join cost 1.12x the copy's time for one URL at 100k and at
400k transactions, 1.23x and 1.35x over the first pages of 1,024 addresses, and the copies
made the store 1.54-1.55x (address_txs 76 -> 259 MiB at 100k, 305 -> 1,040 MiB at 400k).
Alternatives measured on SQLite (synthetic stores of bench/api.py, 100k transactions, 266k
address rows, on a loaded 2-core machine):
- join into `transactions` per entry (schema 11): bench/history_layout.py, same store, same
  run, query and joined bytes per page: one URL 89.7 µs against 57.6 µs contiguous (1.56x),
  first pages of 1,024 addresses 120.2 against 50.6 µs (2.37x). Store 288.8 MB (4 KiB pages).
- contiguous copy on 4 KiB pages: rows of about 900 bytes exceed the 1,002 bytes a page keeps
  in place, so nearly each spilled into an overflow page of its own: address_txs 623 MB, 63%
  of it unused; the store 815 MB built fresh (2.82x), 854 MB upgraded in place (2.96x; the
  same when rebuilt in key order). Over the approved 1.6x.
- contiguous copy on 16 KiB pages (chosen; store/database.py): address_txs 266 MB, 14% unused;
  the store 447 MB built fresh (1.55x of the schema-11 store). An upgraded store is rewritten
  once into 16 KiB pages (VACUUM), which also returns the pages the upgrade freed.
- building the body in Python from the two documents parsed and re-serialized (as
  `documents.entry` did): 30,000 calls, 0.54 s of 6.2 s profiled for 3,000 requests.
- each item concatenated by SQL (`'{"nativeTransaction":' || native_document || ',' || …`,
  schemas 19-29; bench/history_layout.py still reads it so): in a hot loop it cost about as
  much as joining the two documents' bytes here (15.3 against 14.0 us a page of 10 at 2M),
  but in the running service SQLite's string building (its allocator, behind its mutexes)
  cost more: operation 5, one URL, bench/api.py's 2M store, served alone on one core with
  wrk, three alternating rounds: 12,290 req/s concatenated by SQL, 12,820 joined here. On
  PostgreSQL too, in process (bench/history_layout.py's 100k schema, best of five interleaved
  rounds): one URL 143 -> 136 us a page, the spread's pages 135 -> 122 us.
The figures of the whole service are in docs/data-api.md ("How operation 5 is served")."""

from __future__ import annotations

import functools

import orjson

from snowfield.store import documents
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.sql import between, keyset, order

# An item's start, and an address's sub-lists when all are empty (stored as "") after the
# comma that follows the nativeTransaction.
_PREFIX = b'{"nativeTransaction":'
_TRANSACTIONS = b'{"transactions":['  # both answers' start
_EMPTY_REST = b"," + orjson.dumps(documents.sublists((), (), {}, {}))[1:]


def address_items(
    db: Database,
    chain_id: int,
    address: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
    native: bool = False,
) -> Page[tuple[int, int, bytes | None, bytes | None]]:
    """The page `evm_queries.address_transactions` would give, as (block, tx index, the
    nativeTransaction's JSON bytes, the sub-lists' JSON object's bytes), None where a document
    is missing. `native`: listNative's page instead
    (`evm_queries.address_native_transactions`), with no sub-lists (None)."""
    rng, rng_p = between("a.block_number", start_block, end_block)
    sql = _items_sql(db.dialect, rng, after is not None, descending, native)
    rows = db.query(sql, [chain_id, address, *rng_p, *(after or ()), limit + 1])
    if db.dialect != "sqlite":  # PostgreSQL's text arrives as str
        rows = [(b, i, _encoded(tx), _encoded(rest)) for b, i, tx, rest in rows]
    return page_of(rows, limit, lambda r: (r[0], r[1]))


def _encoded(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def transactions_document(
    page: Page[tuple[int, int, bytes | None, bytes | None]], tail: bytes
) -> bytes | None:
    """Operation 5's whole answer, `{"transactions":[…]` followed by `tail` (the members after
    the array, and the closing brace), or None when a document is missing. The array is not
    embedded by orjson: one join makes the answer's bytes, where a join and orjson's copy of
    it made them twice (1.5% of requests/s, served side by side, one URL at 2M)."""
    parts = [_TRANSACTIONS]
    for _, _, tx, rest in page.items:
        if tx is None or rest is None:
            return None
        # A stored sub-lists object starts with its brace: one copy makes it the comma and
        # members (and the closing brace) that follow the nativeTransaction.
        parts += (_PREFIX, tx, rest.replace(b"{", b",", 1) if rest else _EMPTY_REST, b",")
    parts[-1] = b"]" if len(parts) > 1 else _TRANSACTIONS + b"]"
    parts.append(tail)
    return b"".join(parts)


def natives_document(
    page: Page[tuple[int, int, bytes | None, bytes | None]], tail: bytes
) -> bytes | None:
    """listNative's whole answer (as `transactions_document`), or None when one is missing."""
    natives = []
    for _, _, tx, _ in page.items:
        if tx is None:
            return None
        natives.append(tx)
    return b"".join((_TRANSACTIONS, b",".join(natives), b"]", tail))


@functools.lru_cache(maxsize=64)
def _items_sql(dialect: str, rng: str, paged: bool, descending: bool, native: bool) -> str:
    """Built once per shape: this is the service's hottest read."""
    ks = keyset("a.block_number, a.tx_index", descending, (0, 0) if paged else None)[0]
    tx, rest = "a.native_document", "NULL" if native else "a.document"
    if dialect == "sqlite":
        tx, rest = f"CAST({tx} AS BLOB)", rest if native else f"CAST({rest} AS BLOB)"
    # `native = 1` repeats the partial index's condition (address_txs_native).
    only = " AND a.native = 1" if native else ""
    return (
        f"SELECT a.block_number, a.tx_index, {tx}, {rest} FROM address_txs a"
        f" WHERE a.chain_id = ? AND a.address = ?{only}{rng}{ks}"
        f"{order('a.block_number, a.tx_index', descending)} LIMIT ?"
    )
