"""The request log behind the usage operations: the router hands every answered request to
`RequestLog.record` (a tuple appended to a list: nothing else on the request path), and a
background task writes what gathered to the store every `interval` seconds, in one transaction
per batch, in a worker thread.

Bounded: at most `max_pending` requests wait in memory; past that (the store is down or slower
than the traffic) the oldest are dropped and counted in `dropped`, never the service."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Mapping
from typing import Any

from starlette.types import Scope

from snowfield.store import chain_queries, usage_log
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey
from snowfield.store.usage_log import RequestRow

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
        """Notes one answered request (`started`: its time.perf_counter() on arrival)."""
        now = time.perf_counter()
        self._pending.append(
            (time.time(), now - started, scope, route, params.get("chainId"), status, key, credits)
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
        for pending in batch:
            ref = pending[4]
            if ref is not None and ref not in chains:
                found = chain_queries.find_chain(self.db, ref)
                if found is not None:  # an unknown one is looked up again: it may come
                    chains[ref] = str(found.chain_id)
        tag, serial = self._tag, self._serial
        rows = [_row(p, chains, f"{tag}{next(serial):08x}") for p in batch]
        usage_log.write_requests(self.db, rows)

    async def close(self) -> None:
        """Stops the background task and writes what is left."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def _row(pending: tuple[Any, ...], chains: Mapping[str, str], suffix: str) -> RequestRow:
    """The stored row of a pending request: built at flush time, off the request path; its
    chain as its EVM chain id when the reference names an indexed chain."""
    at, elapsed, scope, route, ref, status, key, credits = pending
    client = scope.get("client")
    at_ms = int((at - elapsed) * 1000)  # when it arrived
    return RequestRow(
        log_id=f"{at_ms:012x}{suffix}",
        at_ms=at_ms,
        key_id=None if key is None else key.id,
        key_name=None if key is None else key.name,
        request_type="data",
        method=scope["method"],
        path=scope["path"],
        route=route,
        status=status,
        chain_id=None if ref is None else chains.get(ref, ref),
        rpc_method=None,
        latency_ms=round(elapsed * 1000, 3),
        credits=credits,
        ip=client[0] if client else "",
        host=_header(scope, _HOST),
        user_agent=_header(scope, _AGENT),
    )
