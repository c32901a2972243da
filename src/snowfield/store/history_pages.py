"""Operation 5's page as JSON bytes, assembled by the store: one query whose every row is a
finished item, `{"nativeTransaction":…,` + the address's sub-lists, concatenated by SQL from
the read model's stored documents (store/read_model.py). Python then only joins the rows: no
document is decoded, parsed or re-serialized on the request path.

A row whose documents are missing (NULL: see read_model.py) yields a NULL item (`||` with NULL
is NULL on SQLite and PostgreSQL); the caller then renders that page from the rows.

On SQLite the item is read as a BLOB: the row arrives as bytes, with no UTF-8 decode into a
str and encode back (the page's body is bytes)."""

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
# the document is read from (the contiguous copy on SQLite, the transaction's row on PostgreSQL).
_ITEM = (
    "'{{\"nativeTransaction\":' || {native} || ',' ||"
    " CASE WHEN a.document = '' THEN ? ELSE substr(a.document, 2) END"
)
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
) -> Page[tuple[int, int, bytes | None]]:
    """The page `evm_queries.address_transactions` would give, as (block, tx index, item
    JSON bytes or None where a document is missing)."""
    rng, rng_p = between("a.block_number", start_block, end_block)
    sql = _items_sql(db.dialect, rng, after is not None, descending)
    rows = db.query(sql, [_EMPTY_REST, chain_id, address, *rng_p, *(after or ()), limit + 1])
    if db.dialect != "sqlite":  # PostgreSQL's text arrives as str
        rows = [(b, i, None if item is None else item.encode()) for b, i, item in rows]
    return page_of(rows, limit, lambda r: (r[0], r[1]))


def joined(items: list[bytes]) -> orjson.Fragment:
    """A JSON array of finished items, for orjson to embed verbatim."""
    return orjson.Fragment(b"[" + b",".join(items) + b"]")


@functools.lru_cache(maxsize=32)
def _items_sql(dialect: str, rng: str, paged: bool, descending: bool) -> str:
    """Built once per shape: this is the service's hottest read."""
    ks = keyset("a.block_number, a.tx_index", descending, (0, 0) if paged else None)[0]
    if dialect == "sqlite":
        item, join = f"CAST({_ITEM.format(native='a.native_document')} AS BLOB)", ""
    else:
        item, join = _ITEM.format(native="t.document"), _JOIN
    return (
        f"SELECT a.block_number, a.tx_index, {item} FROM address_txs a{join}"
        f" WHERE a.chain_id = ? AND a.address = ?{rng}{ks}"
        f"{order('a.block_number, a.tx_index', descending)} LIMIT ?"
    )
