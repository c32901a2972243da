"""The request log behind the usage operations: the router hands every answered request to
`RequestLog.record` (a tuple appended to a list: nothing else on the request path), and a
background task writes what gathered to the store every `interval` seconds, in one transaction
per batch, in a worker thread.

The split is measured (bench/api.py part 3, per thread; docs/data-api/operations.md, "Usage"):
the pending tuple keeps plain values, not the request's scope, whose containers the garbage
collector otherwise walked while they waited; the rows are built in the thread, because built
in `record` they cost the event loop's thread more than they saved the writer; the writer
inserts multi-row statements (store/usage_log.py), not one step per row.

Bounded: at most `max_pending` requests wait in memory; past that (the store is down or slower
than the traffic) the oldest are dropped and counted in `dropped`, never the service."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Iterator, Mapping
from typing import Any

from starlette.types import Scope

from snowfield.store import chain_queries, usage_log
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey

log = logging.getLogger("snowfield.api.usage")

_HOST = b"host"
_AGENT = b"user-agent"


class RequestLog:
    def __init__(self, db: Database, *, interval: float = 1.0, max_pending: int = 200_000) -> None:
        self.db = db
        self.interval = interval
        self.max_pending = max_pending
        self.dropped = 0
        self._pending: list[tuple[Any, ...]] = []
        self._task: asyncio.Task[None] | None = None
        self._chains: dict[str, str] = {}  # chain references found indexed -> EVM chain id
        # Log ids grow with time within a process (arrival ms, this log's tag, a counter), so
        # the table's primary key takes appends, not inserts at random pages of the B-tree.
        self._tag = secrets.token_hex(4)
        self._serial = itertools.count()

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

        Only plain values are kept (strings, numbers, the client's address tuple and a dict of
        bytes): a kept scope held its containers alive for up to a second, which the garbage
        collector then walked and promoted; everything else waits for the flush."""
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
                dict(scope["headers"]),
            )
        )
        if len(self._pending) > self.max_pending:
            del self._pending[0]
            self.dropped += 1
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._flush_forever())

    async def _flush_forever(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
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
        """Rows of a batch, its chain references read as EVM chain ids, into the store."""
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
        rows = _rows(batch, chains, offset, self._tag, self._serial)
        usage_log.write_requests(self.db, rows)

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
    tag: str,
    serial: Iterator[int],
) -> list[tuple[Any, ...]]:
    """The stored rows (store/usage_log.py's RequestRow, as plain tuples) of pending requests:
    built at flush time, off the request path; a chain as its EVM chain id when the reference
    names an indexed chain, `at_ms` when the request arrived."""
    rows = []
    for started, ended, method, path, route, ref, status, key_id, key_name, credits, client, \
            headers in batch:  # fmt: skip
        at_ms = int((started + offset) * 1000)
        rows.append(
            (
                f"{at_ms:012x}{tag}{next(serial):08x}",
                at_ms,
                key_id,
                key_name,
                "data",
                method,
                path,
                route,
                status,
                None if ref is None else chains.get(ref, ref),
                None,
                round((ended - started) * 1000, 3),
                credits,
                client[0] if client else "",
                headers.get(_HOST, b"").decode("latin-1"),
                headers.get(_AGENT, b"").decode("latin-1"),
            )
        )
    return rows
