"""Operation 5's page as JSON bytes, assembled by the store: one query whose every row is a
finished item, `{"nativeTransaction":…,` + the address's sub-lists, concatenated by SQL from
the read model's stored documents (store/read_model.py). Python then only joins the rows: no
document is decoded, parsed or re-serialized on the request path; on SQLite the item is read
as a BLOB (bytes, with no UTF-8 decode into a str and encode back).

A row whose documents are missing (NULL: see read_model.py) yields a NULL item (`||` with NULL
is NULL on SQLite and PostgreSQL); the caller then renders that page from the rows.

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
- building the body in Python from the two documents (the item's bytes joined per row, as
  `documents.entry` did): the concatenation moved into SQL's C code and the decode/encode of
  each document disappeared (30,000 calls, 0.54 s of 6.2 s profiled for 3,000 requests).
The figures of the whole service are in docs/data-api.md ("How operation 5 is served")."""

from __future__ import annotations

import functools

import orjson

from snowfield.store import documents
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.sql import between, keyset, order

# An address's sub-lists when all are empty (stored as ""), without its opening brace.
_EMPTY_REST = orjson.dumps(documents.sublists((), (), {}, {}))[1:].decode()
# The item: prefix, the transaction's document, then the sub-lists' members. `{native}`: where
# the document is read from (the copy beside the row; bench/history_layout.py reads the join).
_ITEM = (
    "'{{\"nativeTransaction\":' || {native} || ',' ||"
    " CASE WHEN a.document = '' THEN ? ELSE substr(a.document, 2) END"
)
# The join the copies replaced (measured against them by bench/history_layout.py).
_JOIN = (
    " JOIN transactions t ON t.chain_id = a.chain_id AND t.block_number = a.block_number"
    " AND t.tx_index = a.tx_index"
)


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
) -> Page[tuple[int, int, bytes | None]]:
    """The page `evm_queries.address_transactions` would give, as (block, tx index, item
    JSON bytes or None where a document is missing). `native`: listNative's page instead
    (`evm_queries.address_native_transactions`), each item the nativeTransaction alone."""
    rng, rng_p = between("a.block_number", start_block, end_block)
    sql = _items_sql(db.dialect, rng, after is not None, descending, native)
    lead = [] if native else [_EMPTY_REST]
    rows = db.query(sql, [*lead, chain_id, address, *rng_p, *(after or ()), limit + 1])
    if db.dialect != "sqlite":  # PostgreSQL's text arrives as str
        rows = [(b, i, None if item is None else item.encode()) for b, i, item in rows]
    return page_of(rows, limit, lambda r: (r[0], r[1]))


def joined(items: list[bytes]) -> orjson.Fragment:
    """A JSON array of finished items, for orjson to embed verbatim."""
    return orjson.Fragment(b"[" + b",".join(items) + b"]")


@functools.lru_cache(maxsize=64)
def _items_sql(dialect: str, rng: str, paged: bool, descending: bool, native: bool) -> str:
    """Built once per shape: this is the service's hottest read."""
    ks = keyset("a.block_number, a.tx_index", descending, (0, 0) if paged else None)[0]
    item = "a.native_document" if native else _ITEM.format(native="a.native_document")
    if dialect == "sqlite":
        item = f"CAST({item} AS BLOB)"
    # `native = 1` repeats the partial index's condition (address_txs_native).
    only = " AND a.native = 1" if native else ""
    return (
        f"SELECT a.block_number, a.tx_index, {item} FROM address_txs a"
        f" WHERE a.chain_id = ? AND a.address = ?{only}{rng}{ks}"
        f"{order('a.block_number, a.tx_index', descending)} LIMIT ?"
    )
