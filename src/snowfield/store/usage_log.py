"""The log of the requests the data service answered (usage metrics and apiLogs): written in
batches off the request path, read per API key over a time range.

A request is stored as a compact row of `api_request_log` (ops_schema.py): its key, time and
sequence number (which make its log id), the path, status, chain, latency and credits; what
many requests share (key name, method, route, client address, host, user agent) is one row of
`api_request_contexts` that it names by id. The insert and commit per row, by shape
(bench/request_log.py --shapes, 20,480-row batches): the wide row of schemas 16-23 (16
columns, 10 of them text, TEXT primary key and an index by key) 3.4 µs, 3.2 µs unindexed, as
16 or 10 integer columns 0.7 µs: the text's binding and bytes cost more than the B-trees.
The row here (9 columns, 3 of them text, clustered by key, time and sequence): 1.0 µs.

A context's id is a hash of its fields, so that processes sharing a store agree on it without
asking each other; a writer checks a context it has not seen against the stored one and takes
the next id on a collision (`RequestContexts`)."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from snowfield.store.database import Database, Writer
from snowfield.store.ops_schema import store_context
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.sql import keyset

ANONYMOUS = ""  # the key_id of a request made without a key (the clustered key is NOT NULL)

_LOG_COLS = "key_id, at_ms, seq, context, path, status, chain_id, latency_ms, credits"
_READ = (
    "SELECT r.key_id, r.at_ms, r.seq, c.key_name, c.request_type, c.method, r.path, c.route,"
    " r.status, r.chain_id, c.rpc_method, r.latency_ms, r.credits, c.ip, c.host, c.user_agent"
    " FROM api_request_log r JOIN api_request_contexts c ON c.id = r.context"
)


class RequestRow(NamedTuple):
    """One logged request as the usage operations read it."""

    log_id: str
    at_ms: int
    key_id: str | None
    key_name: str | None
    request_type: str
    method: str
    path: str
    route: str
    status: int
    chain_id: str | None
    rpc_method: str | None
    latency_ms: float
    credits: int
    ip: str
    host: str
    user_agent: str


class Context(NamedTuple):
    """What many requests share, in api_request_contexts' column order."""

    key_name: str | None
    request_type: str
    method: str
    route: str
    rpc_method: str | None
    ip: str
    host: str
    user_agent: str


class StoredRequest(NamedTuple):
    """One row of api_request_log, in its column order (a tuple: batches insert it as is)."""

    key_id: str  # ANONYMOUS without a key
    at_ms: int
    seq: int  # unique per (key_id, at_ms): the writing process's tag and a counter
    context: int  # api_request_contexts.id
    path: str
    status: int
    chain_id: str | None
    latency_ms: float
    credits: int


def log_id(at_ms: int, seq: int) -> str:
    """The log id apiLogs shows: arrival ms and sequence number in fixed-width hex, so that
    ids sort as the requests (28 characters, as the ids stored before schema 24)."""
    return f"{at_ms:012x}{seq:016x}"


def _row(r: tuple[Any, ...]) -> RequestRow:
    """A row of _READ: the key as the reader names it, the log id made of time and seq."""
    at, seq = int(r[1]), int(r[2])
    key_id = None if r[0] == ANONYMOUS else r[0]
    status, latency, credits = int(r[8]), float(r[11]), int(r[12])
    return RequestRow._make(
        (log_id(at, seq), at, key_id, *r[3:8], status, r[9], r[10], latency, credits, *r[13:])
    )


class RequestContexts:
    """Context -> id for the writing process, cached (bounded: contexts are whatever clients
    send). A miss is resolved in the writer's transaction (ops_schema.store_context) and
    cached once that transaction commits (`committed`): a cached id always names a stored
    context, or the rows naming it would drop out of the readers' join."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._ids: dict[Any, int] = {}
        self._new: dict[Any, int] = {}  # resolved in the open transaction

    def get(self, key: Any) -> int | None:
        """The id known under `key` (any hashable the caller derives the context from)."""
        found = self._ids.get(key)
        return self._new.get(key) if found is None else found

    def resolve(self, w: Writer, key: Any, context: Context) -> int:
        """The stored id of `context`, known under `key` from now on in this transaction."""
        cid = self._new[key] = store_context(w, context)
        return cid

    def committed(self, ok: bool) -> None:
        """The transaction of the last resolutions ended: keep them if it committed."""
        new, self._new = self._new, {}
        if ok:
            if len(self._ids) + len(new) > self.capacity:
                self._ids.clear()
            self._ids.update(new)


# A batch goes in as multi-row INSERTs of CHUNK, then CHUNK/4, ... rows (each statement
# prepared once, 9 * CHUNK parameters, under SQLite's 32,766 and PostgreSQL's 65,535): one
# call into the driver per chunk. executemany stepped the statement once per row, releasing
# and retaking the GIL around every step, each time against the event loop's thread: the
# batch cost the server more than its SQL did (bench/api.py, part 3).
CHUNK = 1024
_WIDTH = len(StoredRequest._fields)
# SQLite before 3.32 took at most 999 parameters a statement: there, chunks stop at 64 rows.
_MAX_PARAMS = 32_766 if sqlite3.sqlite_version_info >= (3, 32) else 999
_ROW_MARKS = f"({', '.join('?' * _WIDTH)})"


def _insert(rows: int) -> str:
    # A sequence number taken twice (two processes drew the same tag) loses one row, not the
    # batch: a failed batch would wait for the next flush, and fail again.
    return (
        f"INSERT INTO api_request_log ({_LOG_COLS}) VALUES {', '.join([_ROW_MARKS] * rows)}"
        " ON CONFLICT DO NOTHING"
    )


_INSERTS = {
    n: _insert(n)
    for n in (CHUNK, CHUNK // 4, CHUNK // 16, CHUNK // 64, 4, 1)
    if n == 1 or n * _WIDTH <= _MAX_PARAMS
}


def insert_requests(w: Writer, rows: Sequence[tuple[Any, ...]]) -> None:
    """Rows in StoredRequest's order (plain tuples will do), in the open transaction."""
    at = 0
    for size, sql in _INSERTS.items():  # largest first
        while len(rows) - at >= size:
            w.execute(sql, tuple(itertools.chain.from_iterable(rows[at : at + size])))
            at += size


def write_requests(db: Database, rows: Sequence[RequestRow], contexts: RequestContexts) -> None:
    """Requests as read back (their log ids made by `log_id`), in one transaction: for
    copies and tests; the request log writes StoredRequest rows (insert_requests)."""
    ok = False
    try:
        _write_rows(db, rows, contexts)
        ok = True
    finally:
        contexts.committed(ok)


def _write_rows(db: Database, rows: Sequence[RequestRow], contexts: RequestContexts) -> None:
    with db.transaction() as w:
        stored = []
        for r in rows:
            context = Context(r.key_name, r.request_type, r.method, r.route, r.rpc_method,
                              r.ip, r.host, r.user_agent)  # fmt: skip
            cid = contexts.get(context)
            if cid is None:
                cid = contexts.resolve(w, context, context)
            stored.append(
                StoredRequest(
                    ANONYMOUS if r.key_id is None else r.key_id,
                    r.at_ms,
                    int(r.log_id[12:], 16),
                    cid,
                    r.path,
                    r.status,
                    r.chain_id,
                    r.latency_ms,
                    r.credits,
                )
            )
        insert_requests(w, stored)


@dataclass(frozen=True, slots=True)
class RequestFilter:
    """Which requests a reading sees: one key's, in [start_ms, end_ms), narrowed by fields."""

    key_id: str | None
    start_ms: int
    end_ms: int
    chain_id: str | None = None
    status: int | None = None
    request_type: str | None = None
    path: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        sql = "r.key_id = ? AND r.at_ms >= ? AND r.at_ms < ?"
        params: list[Any] = [ANONYMOUS if self.key_id is None else self.key_id]
        params += [self.start_ms, self.end_ms]
        for column, value in (
            ("r.chain_id", self.chain_id),
            ("r.status", self.status),
            ("c.request_type", self.request_type),
            ("r.path", self.path),
        ):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        return sql, params


def requests_page(
    db: Database, where: RequestFilter, *, after: Key | None, limit: int
) -> Page[RequestRow]:
    """Newest first, keyed (at_ms, seq)."""
    sql, params = where.where()
    ks, ks_p = keyset("r.at_ms, r.seq", True, after)
    rows = db.query(
        f"{_READ} WHERE {sql}{ks} ORDER BY r.at_ms DESC, r.seq DESC LIMIT ?",
        [*params, *ks_p, limit + 1],
    )
    return page_of([_row(r) for r in rows], limit, lambda r: (r.at_ms, int(r.log_id[12:], 16)))


def requests_in(db: Database, where: RequestFilter, *, limit: int) -> list[RequestRow]:
    """Every request the filter sees, oldest first, at most `limit` (the caller says when the
    range holds more)."""
    sql, params = where.where()
    rows = db.query(f"{_READ} WHERE {sql} ORDER BY r.at_ms, r.seq LIMIT ?", [*params, limit])
    return [_row(r) for r in rows]
