"""The request log behind the usage operations: the router hands every answered request to
`RequestLog.record` (a tuple appended to a list, its context id looked up in a dict), and a
background task packs what gathered into one stored batch per key and second
(store/request_batches.py) and writes them in one transaction: when `batch_rows` requests
wait, or the oldest has waited `max_wait` seconds (looked at every `interval`). On SQLite on
the event loop's own thread and connection when the write lock is free (`_write_here`), else
(PostgreSQL, a big batch, a busy store) in a worker thread.

Why inline on SQLite (bench/api.py part 3, 2M store, quiet machine): written from the worker
thread's connection, each commit made the service's connection drop its whole page cache at its
next read (WAL mode), every tenth of a second: the spread load served 76% of its unlogged rate
(one URL 83%). Written inline, the spread served 102.5% (median of three rounds' ratios) and one
URL 87% (six rounds): what was left there was the batch's own writing, on the loop's thread.

What a request costs, measured side by side (the logged and the unlogged server on one CPU at
once, one wrk each, each on its own copy of the 2M store: the ratio of their requests/s; one
URL; docs/data-api/operations.md, "Usage"), schema 27's code against what is here, in one run
of ten rounds: 90.4% against 92.9% (better in every round). Steps, each measured so:
- packed batches, the flush's pass plain arithmetic (2.5 -> 0.9 us a request in process);
- a flush only once 512 requests wait (up to 1 s): a flush's transaction and commit cost
  ~0.1-0.2 ms besides its rows, and at 0.1 s one carried ~200-350 requests there;
- the context id looked up in `record`, the path and chain reference shared with earlier
  requests (`_shared`): a waiting request holds no header, path or reference of its own, so
  the server's next request reuses this one's memory (ten paired rounds: +1.1 points).
Left: the logged server's ratio falls over its first minute or two of load (from ~94-95% to
~89-91%) as SQLite's page cache takes the log's written pages (its memory grows ~0.5 MB/s): a
restarted server is back at 95-97% on the same store; a 1 GB cache falls the same, a 4 MB one
hardly (docs/data-api/operations.md, "Usage").

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
from snowfield.store.usage_log import ANONYMOUS, Context, RequestContexts

log = logging.getLogger("snowfield.api.usage")

_HOST = b"host"
_AGENT = b"user-agent"
_SERIAL_MASK = 2**32 - 1
SEEN_CAPACITY = 4096  # what-requests-kept -> context id entries (they are what clients send)
# The most requests a flush writes on the event loop's thread (`_write_here`): at about 1 us
# a request in process (more when caches are cold), a few ms of the loop. A larger batch (a
# burst, or what waited while the store was busy) goes to the worker thread.
INLINE_ROWS = 4096
# How often the WAL those inline writes leave is checkpointed (from the worker thread).
CHECKPOINT_SECONDS = 5.0


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
        checked = flushed = time.monotonic()
        while True:
            await asyncio.sleep(self.interval)
            now = time.monotonic()
            # A small batch waits for more (up to max_wait): a flush costs about 0.1 ms
            # besides its rows (the transaction, a commit's WAL pages).
            if len(self._pending) >= self.batch_rows or now - flushed >= self.max_wait:
                flushed = now
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
