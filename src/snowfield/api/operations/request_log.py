"""The request log behind the usage operations: the router hands every answered request to
`RequestLog.record` (a tuple appended to a list, its context id looked up in a dict), and a
background task packs what gathered into one stored batch per key and second
(store/request_batches.py) and writes them in one transaction, in a worker thread: when
`batch_rows` requests wait, or the oldest has waited `max_wait` seconds (looked at every
`interval`). On SQLite the log is a file of its own beside the store (`usage_store`,
store/ops_schema.py says why): its commits leave the page cache the service reads the store
through alone, whichever thread makes them, and an indexer's transaction never holds it up.

What a request costs, measured side by side (servers on one CPU at once, one wrk each, each
on its own copy of the 2M store: the ratio of their requests/s to the unlogged one's; one
URL; docs/data-api/operations.md, "Usage"). Forty rounds of 8 s in one run, medians over the
first and second halves:
- the log in the store, written on the event loop's connection (schema 28): 94.3%, then
  91.0%, falling as the log's pages filled that connection's cache;
- in its own file, written on the event loop's thread: 95.3%, 95.2%;
- in its own file, written in the worker thread (here): 96.4%, 96.1%, ahead of the loop's
  thread in 38 rounds of 40.
(Before the log had a file: written from the worker thread into the store, each commit made
the service's connection drop its whole page cache at its next read, WAL mode: spread load
served 76% of its unlogged rate, which writing on the loop's own connection had mended.)
Steps before that, each measured so: packed batches, the flush's pass plain arithmetic
(2.5 -> 0.9 us a request in process); a flush only once 512 requests wait (up to 1 s): a
flush's transaction and commit cost ~0.1-0.2 ms besides its rows; the context id looked up in
`record`, the path and chain reference shared with earlier requests (`_shared`): a waiting
request holds no header, path or reference of its own, so the server's next request reuses
this one's memory (ten paired rounds: +1.1 points).

Every tenth of a second or 512 requests, not every second: a batch keeps its requests' tuples
alive until written, and a second's worth made the event loop's thread slower on every request
(its allocations on cold memory, it seems: +19 us of user time a request, not the writer's,
not the collector's; schema 24-27's rows, six interleaved triples: 0.1 s beat 1 s in four).

Bounded: at most `max_pending` requests wait in memory; past that (the store is down or slower
than the traffic) the oldest are dropped and counted in `dropped`, never the service."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from starlette.types import Scope

from snowfield.store import chain_queries, request_batches
from snowfield.store.database import Database, Writer
from snowfield.store.keys import ApiKey
from snowfield.store.usage_log import ANONYMOUS, Context, RequestContexts, usage_store

log = logging.getLogger("snowfield.api.usage")

_HOST = b"host"
_AGENT = b"user-agent"
_SERIAL_MASK = 2**32 - 1
SEEN_CAPACITY = 4096  # what-requests-kept -> context id entries (they are what clients send)


class RequestLog:
    def __init__(
        self,
        db: Database,
        *,
        interval: float = 0.1,
        batch_rows: int = 512,
        max_wait: float = 1.0,
        max_pending: int = 200_000,
    ) -> None:
        self.db = db
        self.usage = usage_store(db)  # where the log is written (SQLite: a file of its own)
        self.interval = interval
        self.batch_rows = batch_rows
        self.max_wait = max_wait
        self.max_pending = max_pending
        self.dropped = 0
        self._pending: list[tuple[Any, ...]] = []
        self._task: asyncio.Task[None] | None = None
        self._chains: dict[str, str] = {}  # chain references found indexed -> EVM chain id
        # A request's sequence number: this log's random 31-bit tag over a 32-bit counter, so
        # that (key, arrival ms, seq) is unique among processes sharing the store and grows
        # with time within one (the clustered key takes appends, not inserts at random pages).
        self._tag = secrets.randbits(31) << 32
        self._serial = 0  # the next request's counter
        self._contexts = RequestContexts()
        # A context id by what its requests kept (key name, method, route, client, headers):
        # one dict lookup a request where scanning the headers cost more than the rest of
        # its flush. `record` takes only ids whose context is committed.
        self._seen = RequestContexts(SEEN_CAPACITY)
        self._strings: dict[str, str] = {}  # see _shared

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

        Only plain values are kept, never the scope (its containers, kept alive, were walked
        and promoted by the garbage collector): times, status, key, credits, the path and
        chain reference as strings shared with earlier requests, and the context's id when a
        committed context is known by the key name, method, route, client address and headers
        (a tuple: one hash). Otherwise those five wait for the flush, which resolves them."""
        if key is None:
            key_id = key_name = None
        else:
            key_id, key_name = key.id, key.name
        kept = (key_name, scope["method"], route, scope.get("client"), tuple(scope["headers"]))
        cid = self._seen.stored(kept)
        self._pending.append(
            (
                started,
                time.perf_counter(),
                self._shared(scope["path"]),
                self._shared(params.get("chainId")),
                status,
                key_id,
                credits,
                cid,
                None if cid is not None else kept,
            )
        )
        if len(self._pending) > self.max_pending:
            del self._pending[0]
            self.dropped += 1
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._flush_forever())

    def _shared(self, text: str | None) -> str | None:
        """`text`, as the first equal string this log kept (bounded): a pending request then
        holds no string of its own, and the server's next request reuses the memory of this
        one's (kept until the flush, fresh memory each time cost the event loop more than
        the log's own work: bench/api.py part 3)."""
        if text is None:
            return None
        strings = self._strings
        found = strings.get(text)
        if found is None:
            if len(strings) >= SEEN_CAPACITY:
                strings.clear()
            strings[text] = found = text
        return found

    async def _flush_forever(self) -> None:
        flushed = time.monotonic()
        while True:
            await asyncio.sleep(self.interval)
            now = time.monotonic()
            # A small batch waits for more (up to max_wait): a flush costs about 0.1 ms
            # besides its rows (the transaction, a commit's WAL pages).
            if len(self._pending) >= self.batch_rows or now - flushed >= self.max_wait:
                flushed = now
                await self.flush()

    async def flush(self) -> None:
        """Writes what is pending now (on failure it stays pending for the next flush)."""
        batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            await asyncio.to_thread(self._write, batch)
        except Exception:
            log.exception("request log: %d requests wait for the store", len(batch))
            self._pending[:0] = batch[-self.max_pending :]

    def _write(self, batch: list[tuple[Any, ...]]) -> None:
        """Rows of a batch into the log, in a transaction of this thread's connection."""

        def write() -> bool:
            with self.usage.transaction() as w:
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
            self._seen.committed(ok)
        return ok

    def _insert(self, w: Writer, batch: list[tuple[Any, ...]]) -> None:
        """A batch's rows, its chain references read as EVM chain ids, in `w`'s transaction."""
        chains = self._chains
        if len(chains) > 1024:  # references are whatever clients send: keep it bounded
            chains.clear()
        for ref in {pending[3] for pending in batch}:
            if ref is not None and ref not in chains:
                found = chain_queries.find_chain(self.db, ref)
                if found is not None:  # an unknown one is looked up again: it may come
                    chains[ref] = str(found.chain_id)
        # perf_counter() readings to Unix time: one offset for the batch (it spans a second).
        offset = time.time() - time.perf_counter()
        first = self._serial
        if first + len(batch) > _SERIAL_MASK:  # the counter wraps between batches only
            first = 0
        self._serial = first + len(batch)
        # The context ids `record` did not find (not seen, or not yet committed).
        ids = {n: self._context_id(w, p[8]) for n, p in enumerate(batch) if p[7] is None}
        request_batches.insert(w, _pack(batch, ids, chains, offset, self._tag | first))

    def _context_id(self, w: Writer, kept: tuple[Any, ...]) -> int:
        """The context id of what a pending request kept (key name, method, route, client,
        headers): known by that, or by its context's fields (the `host` and `user-agent`
        bytes decoded only for a context not seen), or stored now in `w`'s transaction."""
        key_name, method, route, client, headers = kept
        cid = self._seen.get(kept)
        if cid is not None:
            return cid
        ip = client[0] if client else ""
        host = agent = b""
        for name, value in headers:
            if name == _HOST:
                host = value
            elif name == _AGENT:
                agent = value
        fields = (key_name, method, route, ip, host, agent)
        cid = self._contexts.get(fields)
        if cid is None:
            context = Context(key_name, "data", method, route, None, ip,
                              host.decode("latin-1"), agent.decode("latin-1"))  # fmt: skip
            cid = self._contexts.resolve(w, fields, context)
        self._seen.note(kept, cid)
        return cid

    async def close(self) -> None:
        """Stops the background task and writes what is left."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()


def _pack(
    batch: list[tuple[Any, ...]],
    found: Mapping[int, int],
    chains: Mapping[str, str],
    offset: float,
    seq: int,
) -> list[tuple[str, int, int, bytes]]:
    """The stored batches (store/request_batches.py) of pending requests, one per key and
    second: built at flush time, off the request path, in one pass of plain arithmetic (the
    flush was most of the log's cost: bench/api.py part 3); a context id from `found` (by
    position) where the request had none, a chain as its EVM chain id when the reference
    names an indexed chain, `at_ms` when the request arrived, the requests' sequence numbers
    `seq`, `seq` + 1, ... in order."""
    groups: dict[tuple[str | None, int], tuple[int, list[tuple[Any, ...]]]] = {}
    for n, (started, ended, path, ref, status, key_id, credits, cid, _) in enumerate(batch):
        at = int((started + offset) * 1000)
        second = at // 1000
        group = groups.get((key_id, second))
        if group is None:
            group = groups[(key_id, second)] = (n, [])
        group[1].append(
            (at - second * 1000, n - group[0], found[n] if cid is None else cid, path, status,
             chains.get(ref, ref), int((ended - started) * 1_000_000), credits)
        )  # fmt: skip
    return [
        request_batches.batch_row(ANONYMOUS if key_id is None else key_id, second, seq + first, m)
        for (key_id, second), (first, m) in groups.items()
    ]
