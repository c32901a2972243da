"""The log of the requests the data service answered (usage metrics and apiLogs): written in
batches off the request path, read per API key over a time range."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.sql import keyset

_COLS = (
    "log_id, at_ms, key_id, key_name, request_type, method, path, route, status, chain_id,"
    " rpc_method, latency_ms, credits, ip, host, user_agent"
)


class RequestRow(NamedTuple):
    """One logged request, in the table's column order (a tuple: batches insert it as is)."""

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


def _row(r: tuple[Any, ...]) -> RequestRow:
    at, status, latency, credits = int(r[1]), int(r[8]), float(r[11]), int(r[12])
    return RequestRow._make((r[0], at, *r[2:8], status, r[9], r[10], latency, credits, *r[13:]))


# A batch goes in as multi-row INSERTs of CHUNK, then CHUNK/4, ... rows (each statement
# prepared once, 16 * CHUNK parameters, under SQLite's 32,766 and PostgreSQL's 65,535): one
# call into the driver per chunk. executemany stepped the statement once per row, releasing
# and retaking the GIL around every step, each time against the event loop's thread: the
# batch cost the server more than its SQL did (bench/api.py, part 3).
CHUNK = 1024
# SQLite before 3.32 took at most 999 parameters a statement: there, chunks stop at 16 rows.
_MAX_PARAMS = 32_766 if sqlite3.sqlite_version_info >= (3, 32) else 999
_ROW_MARKS = f"({', '.join('?' * 16)})"


def _insert(rows: int) -> str:
    return f"INSERT INTO api_requests ({_COLS}) VALUES {', '.join([_ROW_MARKS] * rows)}"


_INSERTS = {
    n: _insert(n)
    for n in (CHUNK, CHUNK // 4, CHUNK // 16, CHUNK // 64, 4, 1)
    if n == 1 or n * 16 <= _MAX_PARAMS
}


def write_requests(db: Database, rows: Sequence[tuple[Any, ...]]) -> None:
    """One batch, one transaction; `rows` in RequestRow's order (plain tuples will do)."""
    with db.transaction() as w:
        at = 0
        for size, sql in _INSERTS.items():  # largest first
            while len(rows) - at >= size:
                w.execute(sql, tuple(itertools.chain.from_iterable(rows[at : at + size])))
                at += size


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
        sql = "key_id IS NULL" if self.key_id is None else "key_id = ?"
        params: list[Any] = [] if self.key_id is None else [self.key_id]
        sql += " AND at_ms >= ? AND at_ms < ?"
        params += [self.start_ms, self.end_ms]
        for column, value in (
            ("chain_id", self.chain_id),
            ("status", self.status),
            ("request_type", self.request_type),
            ("path", self.path),
        ):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        return sql, params


def requests_page(
    db: Database, where: RequestFilter, *, after: Key | None, limit: int
) -> Page[RequestRow]:
    """Newest first, keyed (at_ms, log_id)."""
    sql, params = where.where()
    ks, ks_p = keyset("at_ms, log_id", True, after)
    rows = db.query(
        f"SELECT {_COLS} FROM api_requests WHERE {sql}{ks}"
        " ORDER BY at_ms DESC, log_id DESC LIMIT ?",
        [*params, *ks_p, limit + 1],
    )
    return page_of([_row(r) for r in rows], limit, lambda r: (r.at_ms, r.log_id))


def requests_in(db: Database, where: RequestFilter, *, limit: int) -> list[RequestRow]:
    """Every request the filter sees, oldest first, at most `limit` (the caller says when the
    range holds more)."""
    sql, params = where.where()
    rows = db.query(
        f"SELECT {_COLS} FROM api_requests WHERE {sql} ORDER BY at_ms, log_id LIMIT ?",
        [*params, limit],
    )
    return [_row(r) for r in rows]
