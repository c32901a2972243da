"""The log of the requests the data service answered (usage metrics and apiLogs): written in
batches off the request path, read per API key over a time range.

A request is stored as its key, time and sequence number (which make its log id), the path,
status, chain, latency and credits, packed with the others of its key, second and flush into
one row of `api_request_batches` (store/request_batches.py, which says why); what many
requests share (key name, method, route, client address, host, user agent) is one row of
`api_request_contexts` that it names by id. The readers walk a key's batches a second at a
time and filter in Python: the figures they serve (usage over a range, a page of logs) read
every request of the range or of its newest seconds anyway.

A context's id is a hash of its fields, so that processes sharing a store agree on it without
asking each other; a writer checks a context it has not seen against the stored one and takes
the next id on a collision (`RequestContexts`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from snowfield.store import request_batches
from snowfield.store.database import Database, Writer
from snowfield.store.ops_schema import CONTEXT_COLUMNS, USAGE, store_context
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.request_batches import Unpacked
from snowfield.store.sql import in_list, keyset

ANONYMOUS = ""  # the key_id of a request made without a key (the clustered key is NOT NULL)

_STEP = 64  # batches a reader takes from the store at a time
_CONTEXTS_STEP = 500  # contexts a reader looks up in one statement


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


def _row(key_id: str, r: Unpacked, c: Context) -> RequestRow:
    """A stored request and its context as the usage operations read them."""
    at, seq, _, path, status, chain_id, latency, credits = r
    return RequestRow(
        log_id(at, seq), at, None if key_id == ANONYMOUS else key_id, c.key_name,
        c.request_type, c.method, path, c.route, status, chain_id, c.rpc_method, latency,
        credits, c.ip, c.host, c.user_agent,
    )  # fmt: skip


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

    def stored(self, key: Any) -> int | None:
        """The id known under `key` whose context is committed (none of the open
        transaction's): for a reader outside that transaction."""
        return self._ids.get(key)

    def resolve(self, w: Writer, key: Any, context: Context) -> int:
        """The stored id of `context`, known under `key` from now on in this transaction."""
        cid = store_context(w, context)
        self.note(key, cid)
        return cid

    def note(self, key: Any, cid: int) -> None:
        """`cid` known under `key` too from now on in this transaction."""
        self._new[key] = cid

    def committed(self, ok: bool) -> None:
        """The transaction of the last resolutions ended: keep them if it committed."""
        new, self._new = self._new, {}
        if ok:
            if len(self._ids) + len(new) > self.capacity:
                self._ids.clear()
            self._ids.update(new)


def usage_store(db: Database) -> Database:
    """The database that holds the request log of the store `db`: on SQLite its companion
    file (store/ops_schema.py says why), on PostgreSQL the store's own schema."""
    return db.companion(USAGE)


def insert_requests(w: Writer, rows: Sequence[Sequence[Any]]) -> None:
    """Rows in StoredRequest's order (plain tuples will do), packed, in the open
    transaction (of the log's database: `usage_store`)."""
    request_batches.insert(w, request_batches.pack(rows))


def write_requests(db: Database, rows: Sequence[RequestRow], contexts: RequestContexts) -> None:
    """Requests as read back (their log ids made by `log_id`), into the log of the store
    `db`, in one transaction: for copies and tests; the request log writes StoredRequest rows
    (insert_requests)."""
    ok = False
    try:
        _write_rows(usage_store(db), rows, contexts)
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
                    float(r.latency_ms),
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

    def seconds(self) -> tuple[int, int]:
        """The Unix seconds [first, past) that hold the range's requests."""
        return self.start_ms // 1000, -(-self.end_ms // 1000)

    def keeps(self, r: Unpacked) -> bool:
        """Whether the filter sees a stored request (its context aside: `keeps_context`)."""
        return (
            self.start_ms <= r[0] < self.end_ms
            and (self.chain_id is None or r[5] == self.chain_id)
            and (self.status is None or r[4] == self.status)
            and (self.path is None or r[3] == self.path)
        )

    def keeps_context(self, c: Context) -> bool:
        return self.request_type is None or c.request_type == self.request_type


def _seconds(
    db: Database, key_id: str, first: int, past: int, *, descending: bool
) -> Iterator[list[Unpacked]]:
    """The stored requests of `key_id` in seconds [first, past), a second at a time, oldest
    (or newest) first, each second's sorted by (at_ms, seq) the same way: a second's requests
    may lie in several batches (flushes, processes), which are merged here."""
    way = " DESC" if descending else ""
    after: tuple[int, int] | None = None
    current: int | None = None
    held: list[Unpacked] = []
    while True:
        ks, ks_p = keyset("second, seq", descending, after)
        batches = db.query(
            "SELECT second, seq, requests FROM api_request_batches"
            f" WHERE key_id = ? AND second >= ? AND second < ?{ks}"
            f" ORDER BY second{way}, seq{way} LIMIT ?",
            [key_id, first, past, *ks_p, _STEP],
        )
        for second, seq, packed in batches:
            if second != current:
                if held:
                    yield sorted(held, key=_order, reverse=descending)
                current, held = second, []
            held.extend(request_batches.unpack(int(second), int(seq), packed))
        if len(batches) < _STEP:
            break
        after = (int(batches[-1][0]), int(batches[-1][1]))
    if held:
        yield sorted(held, key=_order, reverse=descending)


def _order(r: Unpacked) -> tuple[int, int]:
    return r[0], r[1]


def _contexts(db: Database, ids: set[int], known: dict[int, Context]) -> None:
    """Adds the contexts of `ids` not yet in `known`."""
    wanted = sorted(ids.difference(known))
    for at in range(0, len(wanted), _CONTEXTS_STEP):
        step = wanted[at : at + _CONTEXTS_STEP]
        for cid, *fields in db.query(
            f"SELECT id, {CONTEXT_COLUMNS} FROM api_request_contexts WHERE id IN {in_list(step)}",
            step,
        ):
            known[int(cid)] = Context._make(fields)


def _read(
    db: Database, where: RequestFilter, first: int, past: int, *, descending: bool
) -> Iterator[list[RequestRow]]:
    """The requests `where` sees in seconds [first, past), a second at a time, from the log
    of the store `db`."""
    key_id = ANONYMOUS if where.key_id is None else where.key_id
    known: dict[int, Context] = {}
    log = usage_store(db)
    for second in _seconds(log, key_id, first, past, descending=descending):
        kept = [r for r in second if where.keeps(r)]
        _contexts(log, {r[2] for r in kept}, known)
        yield [
            _row(key_id, r, c)
            for r in kept
            if (c := known.get(r[2])) is not None and where.keeps_context(c)
        ]


def requests_page(
    db: Database, where: RequestFilter, *, after: Key | None, limit: int
) -> Page[RequestRow]:
    """Newest first, keyed (at_ms, seq)."""
    first, past = where.seconds()
    if after is not None:
        past = min(past, int(after[0]) // 1000 + 1)
    out: list[RequestRow] = []
    for second in _read(db, where, first, past, descending=True):
        out += (
            second
            if after is None
            else [r for r in second if (r.at_ms, _seq(r)) < (int(after[0]), int(after[1]))]
        )
        if len(out) > limit:
            break
    return page_of(out[: limit + 1], limit, lambda r: (r.at_ms, _seq(r)))


def _seq(r: RequestRow) -> int:
    return int(r.log_id[12:], 16)


def requests_in(db: Database, where: RequestFilter, *, limit: int) -> list[RequestRow]:
    """Every request the filter sees, oldest first, at most `limit` (the caller says when the
    range holds more)."""
    out: list[RequestRow] = []
    for second in _read(db, where, *where.seconds(), descending=False):
        out += second
        if len(out) >= limit:
            break
    return out[:limit]


def clear(db: Database) -> None:
    """Forgets every request logged for the store `db` (for benches: a cached store keeps no
    log of their own load)."""
    with usage_store(db).transaction() as w:
        w.execute("DELETE FROM api_request_batches")
        w.execute("DELETE FROM api_request_contexts")
