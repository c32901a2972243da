"""The request log behind the usage operations: the router hands every answered request to
`RequestLog.record` (a tuple appended to a list: nothing else on the request path), and a
background task writes what gathered to the store every `interval` seconds, in one transaction
per batch: on SQLite on the event loop's own thread and connection when the write lock is free
(`_write_here`), else (PostgreSQL, a big batch, a busy store) in a worker thread.

Why inline on SQLite (bench/api.py part 3, 2M store, quiet machine): written from the worker
thread's connection, each commit made the service's connection drop its whole page cache at its
next read (WAL mode), every tenth of a second: the spread load served 76% of its unlogged rate
(one URL 83%). Written inline, the spread served 102.5% (median of three rounds' ratios) and one
URL 87% (six rounds): what is left there is the batch's own writing, on the loop's thread.

The split is measured (bench/api.py part 3, per thread; docs/data-api/operations.md, "Usage"):
the pending tuple keeps plain values, not the request's scope, whose containers the garbage
collector otherwise walked while they waited; the rows are built in the thread, because built
in `record` they cost the event loop's thread more than they saved the writer; the writer
inserts multi-row statements (store/usage_log.py), not one step per row.

Every tenth of a second, not every second: a batch keeps its requests' tuples and headers alive
until written, and a second's worth made the event loop's thread slower on every request (its
allocations on cold memory, it seems: +19 us of user time a request, not the writer's, not the
collector's). Six interleaved triples of one pinned server under wrk (logged at 1 s, at 0.1 s,
unlogged): 0.1 s beat 1 s in four, median 1.18x; against unlogged, medians 92% at 1 s and
98.5% at 0.1 s (docs/data-api/operations.md, "Usage").

Bounded: at most `max_pending` requests wait in memory; past that (the store is down or slower
than the traffic) the oldest are dropped and counted in `dropped`, never the service."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from starlette.types import Scope

from snowfield.store import chain_queries, usage_log
from snowfield.store.database import Database, Writer
from snowfield.store.keys import ApiKey
from snowfield.store.usage_log import ANONYMOUS, Context, RequestContexts

log = logging.getLogger("snowfield.api.usage")

_HOST = b"host"
_AGENT = b"user-agent"
_SERIAL_MASK = 2**32 - 1
# The most requests a flush writes on the event loop's thread (`_write_here`): at about 2.5 us
# a row, 10 ms of the loop. A larger batch (a burst, or what waited while the store was busy)
# goes to the worker thread.
INLINE_ROWS = 4096
# How often the WAL those inline writes leave is checkpointed (from the worker thread).
CHECKPOINT_SECONDS = 5.0


class RequestLog:
    def __init__(self, db: Database, *, interval: float = 0.1, max_pending: int = 200_000) -> None:
        self.db = db
        self.interval = interval
        self.max_pending = max_pending
        self.dropped = 0
        self._pending: list[tuple[Any, ...]] = []
        self._task: asyncio.Task[None] | None = None
        self._chains: dict[str, str] = {}  # chain references found indexed -> EVM chain id
        # A request's sequence number: this log's random 31-bit tag over a 32-bit counter, so
        # that (key, arrival ms, seq) is unique among processes sharing the store and grows
        # with time within one (the clustered key takes appends, not inserts at random pages).
        self._tag = secrets.randbits(31) << 32
        self._serial = itertools.count()
        self._contexts = RequestContexts()
        self._inline = False  # written on the loop's thread since the last checkpoint

    def record(
        self,
        scope: Scope,
        route: str,
        params: Mapping[str, str],
        status: int,
        started: float,
        key: ApiKey | None,
        credits: int,
    ) -> None:
        """Notes one answered request (`started`: its time.perf_counter() on arrival).

        Only plain values are kept (strings, numbers, the client's address tuple and the
        headers' (name, value) pairs): a kept scope held its containers alive for up to a
        second, which the garbage collector then walked and promoted. The headers are copied
        to a tuple, which the collector stops tracking at its first pass as it does the pairs
        (a list it tracks until it goes); a dict of them, as before, cost about 0.8 µs more a
        request than the tuple. Everything else waits for the flush."""
        if key is None:
            key_id = key_name = None
        else:
            key_id, key_name = key.id, key.name
        self._pending.append(
            (
                started,
                time.perf_counter(),
                scope["method"],
                scope["path"],
                route,
                params.get("chainId"),
                status,
                key_id,
                key_name,
                credits,
                scope.get("client"),
                tuple(scope["headers"]),
            )
        )
        if len(self._pending) > self.max_pending:
            del self._pending[0]
            self.dropped += 1
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._flush_forever())

    async def _flush_forever(self) -> None:
        checked = time.monotonic()
        while True:
            await asyncio.sleep(self.interval)
            await self.flush()
            if self._inline and time.monotonic() - checked >= CHECKPOINT_SECONDS:
                checked = time.monotonic()
                await self._checkpoint()

    async def _checkpoint(self) -> None:
        """The WAL's frames into the database file, in the worker thread (the inline writes'
        commits do not checkpoint: Database.write_now); a checkpoint changes no content, so
        the service's connection keeps its page cache."""
        self._inline = False
        try:
            await asyncio.to_thread(self.db.checkpoint)
        except Exception:
            self._inline = True  # tried again at the next period
            log.exception("request log: checkpoint failed")

    async def flush(self) -> None:
        """Writes what is pending now (on failure it stays pending for the next flush)."""
        batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            if not self._write_here(batch):
                await asyncio.to_thread(self._write, batch)
        except Exception:
            log.exception("request log: %d requests wait for the store", len(batch))
            self._pending[:0] = batch[-self.max_pending :]

    def _write_here(self, batch: list[tuple[Any, ...]]) -> bool:
        """On SQLite, a batch of at most INLINE_ROWS is written on the event loop's thread,
        through the connection the service reads with, when the write lock is free: written
        from another connection (the worker thread's), each commit made the service's
        connection drop its page cache (WAL mode), and the requests after it read their pages
        again. False: not written here (PostgreSQL, a larger batch, or the lock is taken, say
        by an indexer's batch: the worker thread then waits for it)."""
        if self.db.dialect != "sqlite" or len(batch) > INLINE_ROWS:
            return False
        written = self._committing(lambda: self.db.write_now(lambda w: self._insert(w, batch)))
        self._inline = self._inline or written
        return written

    def _write(self, batch: list[tuple[Any, ...]]) -> None:
        """Rows of a batch into the store, in a transaction of this thread's connection."""

        def write() -> bool:
            with self.db.transaction() as w:
                self._insert(w, batch)
            return True

        self._committing(write)

    def _committing(self, write: Callable[[], bool]) -> bool:
        """`write`'s result; the contexts it stored are kept only if it committed."""
        ok = False
        try:
            ok = write()
        finally:
            self._contexts.committed(ok)
        return ok

    def _insert(self, w: Writer, batch: list[tuple[Any, ...]]) -> None:
        """A batch's rows, its chain references read as EVM chain ids, in `w`'s transaction."""
        chains = self._chains
        if len(chains) > 1024:  # references are whatever clients send: keep it bounded
            chains.clear()
        for ref in {pending[5] for pending in batch}:
            if ref is not None and ref not in chains:
                found = chain_queries.find_chain(self.db, ref)
                if found is not None:  # an unknown one is looked up again: it may come
                    chains[ref] = str(found.chain_id)
        # perf_counter() readings to Unix time: one offset for the batch (it spans a second).
        offset = time.time() - time.perf_counter()
        rows = _rows(batch, chains, offset, self._tag, self._serial, self._contexts, w)
        usage_log.insert_requests(w, rows)

    async def close(self) -> None:
        """Stops the background task and writes what is left."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()


def _rows(
    batch: list[tuple[Any, ...]],
    chains: Mapping[str, str],
    offset: float,
    tag: int,
    serial: Iterator[int],
    contexts: RequestContexts,
    w: Writer,
) -> list[tuple[Any, ...]]:
    """The stored rows (store/usage_log.py's StoredRequest, as plain tuples) of pending
    requests: built at flush time, off the request path; a chain as its EVM chain id when the
    reference names an indexed chain, `at_ms` when the request arrived. A context is looked
    up by what the request kept (header bytes undecoded): decoded only when first seen."""
    rows = []
    for started, ended, method, path, route, ref, status, key_id, key_name, credits, client, \
            headers in batch:  # fmt: skip
        ip = client[0] if client else ""
        host = agent = b""
        for name, value in headers:
            if name == _HOST:
                host = value
            elif name == _AGENT:
                agent = value
        seen = (key_name, method, route, ip, host, agent)
        cid = contexts.get(seen)
        if cid is None:
            context = Context(key_name, "data", method, route, None, ip,
                              host.decode("latin-1"), agent.decode("latin-1"))  # fmt: skip
            cid = contexts.resolve(w, seen, context)
        rows.append(
            (
                ANONYMOUS if key_id is None else key_id,
                int((started + offset) * 1000),
                tag | (next(serial) & _SERIAL_MASK),
                cid,
                path,
                status,
                None if ref is None else chains.get(ref, ref),
                round((ended - started) * 1000, 3),
                credits,
            )
        )
    return rows
