"""Where a sync turns P-Chain containers into rows: on the event loop, or in a worker process
during a long backfill, so that one batch is extracted while the one before it is written.

Why a process and not a thread: extraction (decoding) and the writer's row preparation are
both Python, and a thread shares the GIL. Writing a batch while the next was extracted in the
same process gave nothing (2,916 vs 2,901 containers/s). In a worker process the two overlap;
the rows come back pickled (~14 us a container each way against ~70 us of extraction). Over
10,000 containers, on two cores shared with the node: 4,547-4,694 containers/s against
4,166-4,374 on the event loop (bench/primary_index.py measures both). The worker's start,
imports included, takes ~120 ms, what ~1,700 containers take to extract: it is taken only for
a backlog well beyond that."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Protocol

from snowfield.indexer.extract.platform import Addresses, extract
from snowfield.store.primary_rows import BlockRows

# Containers left to index from which a sync extracts in a worker process.
PROCESS_BACKLOG = 10_000

Item = tuple[int, str, bytes, int]  # index, id, bytes, accepted at (ns)


class Container(Protocol):
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def data(self) -> bytes: ...
    @property
    def timestamp_ns(self) -> int: ...


class Extraction(Protocol):
    async def blocks(self, containers: Sequence[Container]) -> list[BlockRows]: ...

    def close(self) -> None: ...


class InlineExtraction:
    """On the event loop: no start cost, for the head and short backlogs."""

    def __init__(self, addresses: Addresses) -> None:
        self.addresses = addresses

    async def blocks(self, containers: Sequence[Container]) -> list[BlockRows]:
        return [extract(*_item(c), self.addresses) for c in containers]

    def close(self) -> None:
        pass


class ProcessExtraction:
    """In one worker process (spawned: the indexer's process has threads, which fork would
    copy mid-lock)."""

    def __init__(self, hrp: str) -> None:
        self._pool = ProcessPoolExecutor(
            1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(hrp,),
        )

    async def blocks(self, containers: Sequence[Container]) -> list[BlockRows]:
        items = [_item(c) for c in containers]
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, _extract_items, items)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _item(c: Container) -> Item:
    return (c.index, c.id, c.data, c.timestamp_ns)


_worker_addresses: Addresses | None = None


def _start_worker(hrp: str) -> None:
    global _worker_addresses
    _worker_addresses = Addresses(hrp)


def _extract_items(items: Sequence[Item]) -> list[BlockRows]:
    assert _worker_addresses is not None
    return [extract(*item, _worker_addresses) for item in items]
