"""The indexing loop: plan a range → fetch → extract → enrich → write rows and checkpoint in
one transaction; unwind on a parent-hash mismatch; then follow the head.

Fetch, extract + enrich, and write run as three overlapped stages joined by small queues: the
fetcher stays up to FETCH_AHEAD batches ahead, and the writer commits a batch in a thread
while the next one is enriched, so the writer never waits on the node nor the fetcher on
SQLite. Each stage's busy time is counted (`Stats.busy`) to tell which one bounds a run."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from snowfield.errors import Unavailable
from snowfield.indexer.balances import BalanceTracker
from snowfield.indexer.calls import Calls
from snowfield.indexer.extract.activity import activity
from snowfield.indexer.extract.blocks import block_row, tx_rows
from snowfield.indexer.extract.icm import icm_rows
from snowfield.indexer.extract.logs import log_rows
from snowfield.indexer.extract.traces import contract_rows, internal_rows
from snowfield.indexer.extract.transfers import transfer_rows
from snowfield.indexer.nfts import nft_rows
from snowfield.indexer.nfts import reindex as reindex_nfts
from snowfield.indexer.rollups import compute as compute_rollups
from snowfield.indexer.source import NodeSource, RawBlock
from snowfield.indexer.token_balances import TokenBalanceTracker
from snowfield.indexer.tokens import detect
from snowfield.rpc.client import DocumentFetcher
from snowfield.store import backfill_ranges, writes
from snowfield.store.database import Database
from snowfield.store.rows import BalanceRow, BlockBundle, NftRow, TokenRow

log = logging.getLogger("snowfield.indexer")
T = TypeVar("T")
STAGES = ("fetch", "extract", "enrich", "write")
FETCH_AHEAD = 2  # batches fetched and queued ahead of the one being enriched


@dataclass(eq=False)  # a prometheus-client collector is registered by identity
class Stats(Collector):
    """Counters an operator scrapes (see the CLI's /metrics)."""

    height: int = -1
    head: int = -1
    blocks: int = 0
    transactions: int = 0
    batches: int = 0
    unwinds: int = 0
    started: float = field(default_factory=time.monotonic)
    # Seconds each stage spent working (not waiting on a queue); fetch and enrich include
    # the node's answer times. The stage whose busy time nears the run's wall time bounds it.
    busy: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))

    def collect(self) -> Iterator[Metric]:
        for name, family, value, text in (
            (
                "indexed_height",
                GaugeMetricFamily,
                self.height,
                "Last block written with its checkpoint.",
            ),
            ("node_head", GaugeMetricFamily, self.head, "Latest block the node reported."),
            ("blocks", CounterMetricFamily, self.blocks, "Blocks indexed by this process."),
            ("transactions", CounterMetricFamily, self.transactions, "Transactions indexed."),
            ("batches", CounterMetricFamily, self.batches, "Batches written."),
            ("unwinds", CounterMetricFamily, self.unwinds, "Reorganisations unwound."),
        ):
            yield family(f"snowfield_indexer_{name}", text, value=value)
        busy = CounterMetricFamily(
            "snowfield_indexer_stage_busy_seconds",
            "Seconds each pipeline stage spent working.",
            labels=["stage"],
        )
        for stage, seconds in self.busy.items():
            busy.add_metric([stage], seconds)
        yield busy

    def prometheus(self) -> str:
        """The counters in Prometheus text exposition format."""
        registry = CollectorRegistry(auto_describe=False)
        registry.register(self)
        return generate_latest(registry).decode()


@dataclass(frozen=True, slots=True)
class Batch:
    bundles: list[BlockBundle]
    tokens: list[TokenRow]
    nfts: list[NftRow]


Progress = Callable[[int, int], None]  # (blocks done, blocks total)


@dataclass
class InFlight:
    """What the batches enriched but perhaps not yet committed hold, for the stages ahead of
    the writer: the last block (its parent-hash check), and the tokens and NFTs they store
    (not detected twice)."""

    tip: tuple[int, str] | None = None
    tokens: dict[str, int] = field(default_factory=dict)  # address -> its batch's last block
    nfts: dict[tuple[str, int], int] = field(default_factory=dict)

    def add(self, batch: Batch) -> None:
        last = batch.bundles[-1].block
        self.tip = (last.number, last.hash.lower())
        self.tokens.update((t.address, last.number) for t in batch.tokens)
        self.nfts.update(((n.token, n.token_id), last.number) for n in batch.nfts)

    def written(self, height: int) -> None:
        """Forgets the facts the store now holds."""
        self.tokens = {k: h for k, h in self.tokens.items() if h > height}
        self.nfts = {k: h for k, h in self.nfts.items() if h > height}


class Indexer:
    def __init__(
        self,
        db: Database,
        calls: Calls,
        fetcher: DocumentFetcher,
        chain_id: int,
        *,
        batch_blocks: int = 100,
        traces: str = "auto",
        rollups: bool = True,
    ) -> None:
        self.db = db
        self.calls = calls
        self.source = NodeSource(calls, traces)
        self.fetcher = fetcher
        self.chain_id = chain_id
        self.batch_blocks = batch_blocks
        # Metrics rollups move with the rows; off only to measure what they cost (bench).
        self.rollups = compute_rollups if rollups else None
        self.balances = BalanceTracker(db, calls, chain_id)
        self.token_balances = TokenBalanceTracker(db, calls, chain_id)
        self.stats = Stats()
        self._rollups_checked = False
        self._in_flight = InFlight()
        # The claimed range of a parallel backfill this indexer writes (its start block), whose
        # progress it starts from and moves in place of the checkpoint; None: the checkpoint.
        self.range_start: int | None = None

    # -- driving -------------------------------------------------------------------------

    async def sync(self, until: int | None = None, progress: Progress | None = None) -> int:
        """Indexes from the checkpoint to `until` (default: the node's head); returns the
        checkpoint height (-1 when nothing is indexed)."""
        target = await self.source.head() if until is None else until
        self.stats.head = target
        if self.rollups is not None and not self._rollups_checked:
            if await asyncio.to_thread(
                writes.backfill_rollups, self.db, self.chain_id, self.rollups
            ):
                log.info("built the metrics rollups of the blocks indexed before them")
            self._rollups_checked = True
        start = origin = await self._next_height()
        total = max(0, target - start + 1)

        def report(after: int) -> None:
            if progress is not None:
                progress(min(total, max(0, after - origin)), total)

        while (fork := await self._pipeline(start, target, report)) is not None:
            await self._unwind_fork(fork)
            start = await self._next_height()
            total = max(total, target - start + 1)
        return self.stats.height

    async def _pipeline(self, start: int, target: int, report: Callable[[int], None]) -> int | None:
        """Runs the three stages over start..target until all is written (None), or until a
        batch does not connect to the one before it: then, once the batches before it are
        written, the height to unwind from."""
        fetched: asyncio.Queue[list[RawBlock] | Exception] = asyncio.Queue(FETCH_AHEAD)
        to_write: asyncio.Queue[Batch | None] = asyncio.Queue(1)
        fetcher = asyncio.create_task(self._fetch_stage(start, target, fetched))
        writer = asyncio.create_task(self._write_stage(to_write, report))
        fork = None
        done = False
        try:
            while raws := await _unless_failed(fetched.get(), writer):
                if isinstance(raws, Exception):
                    raise raws
                if not await self._connects(raws[0]):
                    fork = raws[0].number - 1
                    break
                batch = await self._enrich(raws)
                self._in_flight.add(batch)
                await _unless_failed(to_write.put(batch), writer)
            await _unless_failed(to_write.put(None), writer)
            await writer
            done = True
        finally:
            fetcher.cancel()
            writer.cancel()
            await asyncio.gather(fetcher, writer, return_exceptions=True)
            self._in_flight = InFlight()
            if fork is not None or not done:
                self.balances.forget()  # values of batches that were never written
                self.token_balances.forget()
        return fork

    async def _fetch_stage(
        self, start: int, target: int, out: asyncio.Queue[list[RawBlock] | Exception]
    ) -> None:
        """Batches of consecutive blocks into `out`; an empty one ends the range (or the
        node's chain), an exception ends the stage."""
        try:
            while start <= target:
                numbers = list(range(start, min(target, start + self.batch_blocks - 1) + 1))
                began = time.perf_counter()
                raws = _consistent(await self.source.blocks(numbers))
                self.stats.busy["fetch"] += time.perf_counter() - began
                await out.put(raws)
                if not raws:
                    return
                start = raws[-1].number + 1
            await out.put([])
        except Exception as exc:  # handed to the enricher, which raises it in order
            await out.put(exc)

    async def _write_stage(
        self, inbox: asyncio.Queue[Batch | None], report: Callable[[int], None]
    ) -> None:
        while (batch := await inbox.get()) is not None:
            began = time.perf_counter()
            job = asyncio.ensure_future(
                asyncio.to_thread(
                    writes.write_batch,
                    self.db,
                    self.chain_id,
                    batch.bundles,
                    batch.tokens,
                    batch.nfts,
                    rollups=self.rollups,
                    range_start=self.range_start,
                )
            )
            try:
                await asyncio.shield(job)
            except asyncio.CancelledError:
                # The transaction runs on in its thread: let it end before the stage does,
                # so that no write outlives the pipeline.
                with contextlib.suppress(Exception):
                    await job
                raise
            self.stats.busy["write"] += time.perf_counter() - began
            self._count(batch)
            height = batch.bundles[-1].block.number
            self._in_flight.written(height)
            self.balances.settle(height)
            self.token_balances.settle(height)
            report(height + 1)

    async def follow(self, stop: asyncio.Event, poll: float = 0.5) -> None:
        """Keeps indexing new blocks until `stop` is set; node errors are retried."""
        while not stop.is_set():
            try:
                await self.sync()
                await self.reindex_nfts()
            except Exception as exc:  # any node or network failure: log, back off, retry
                log.warning("indexing failed, retrying: %s", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=poll)

    async def reindex_nfts(self) -> int:
        """Fetches again the metadata of the NFTs whose reindex the data service recorded
        (between syncs: no batch's documents are being rendered meanwhile); how many."""
        return await reindex_nfts(
            self.db,
            self.calls,
            self.fetcher,
            self.chain_id,
            self.stats.height,
            now=int(time.time()),
        )

    # -- steps ---------------------------------------------------------------------------

    async def _next_height(self) -> int:
        if self.range_start is not None:
            found = await asyncio.to_thread(
                backfill_ranges.next_block, self.db, self.chain_id, self.range_start
            )
            if found is None:
                raise Unavailable(f"the backfill range from {self.range_start} is gone")
            self.stats.height = found - 1
            return found
        cp = await asyncio.to_thread(writes.checkpoint, self.db, self.chain_id)
        self.stats.height = -1 if cp is None else cp[0]
        return 0 if cp is None else cp[0] + 1

    async def _connects(self, first: RawBlock) -> bool:
        if first.number == 0:
            return True
        tip = self._in_flight.tip
        if tip is not None and tip[0] == first.number - 1:
            return bool(tip[1] == first.block["parentHash"].lower())
        stored = await asyncio.to_thread(
            writes.block_hash, self.db, self.chain_id, first.number - 1
        )
        return stored is None or stored == first.block["parentHash"].lower()

    async def _unwind_fork(self, height: int) -> None:
        """Walks back from `height` to the newest block the node and the store agree on."""
        while height >= 0:
            low = max(0, height - 63)
            numbers = list(range(height, low - 1, -1))
            node_hashes = await self.source.block_hashes(numbers)
            for n, node_hash in zip(numbers, node_hashes, strict=True):
                stored = await asyncio.to_thread(writes.block_hash, self.db, self.chain_id, n)
                if stored is None or stored == node_hash:
                    await self._unwind(n + 1)
                    return
            height = low - 1
        await self._unwind(0)

    async def _unwind(self, height: int) -> None:
        log.warning("chain %s reorganised: unwinding from block %d", self.chain_id, height)
        await asyncio.to_thread(writes.unwind, self.db, self.chain_id, height, rollups=self.rollups)
        self.stats.unwinds += 1

    async def _enrich(self, raws: Sequence[RawBlock]) -> Batch:
        began = time.perf_counter()
        bundles = [extract(self.chain_id, raw) for raw in raws]
        extracted = time.perf_counter()
        self.stats.busy["extract"] += extracted - began
        tokens, nfts, balances, token_balances = await asyncio.gather(
            self._tokens(bundles),
            self._nfts(bundles),
            self._balances(bundles),
            self.token_balances.rows(bundles),
        )
        self.stats.busy["enrich"] += time.perf_counter() - extracted
        with_balances = [
            dataclasses.replace(bundle, balances=tuple(native), token_balances=tuple(held))
            for bundle, native, held in zip(bundles, balances, token_balances, strict=True)
        ]
        return Batch(with_balances, tokens, nfts)

    async def _tokens(self, bundles: Sequence[BlockBundle]) -> list[TokenRow]:
        seen: dict[str, tuple[int, str | None]] = {}
        for bundle in bundles:
            for c in bundle.contracts:
                seen.setdefault(c.address, (c.block_number, None))
            for t in bundle.transfers:
                block, hint = seen.get(t.token, (t.block_number, None))
                seen[t.token] = (block, hint or t.erc_type)
        first = {a: b for a, (b, _) in seen.items()}
        known = await asyncio.to_thread(writes.known_tokens, self.db, self.chain_id, seen, first)
        known.update(self._in_flight.tokens)
        wanted = [(a, b, h) for a, (b, h) in sorted(seen.items()) if a not in known]
        return await detect(self.calls, self.chain_id, wanted) if wanted else []

    async def _nfts(self, bundles: Sequence[BlockBundle]) -> list[NftRow]:
        seen: dict[tuple[str, int], tuple[str, int, int]] = {}
        for bundle in bundles:
            for t in bundle.transfers:
                if t.token_id is not None:
                    seen.setdefault(
                        (t.token, t.token_id), (t.erc_type, t.block_number, t.block_timestamp)
                    )
        first_seen = {k: v[1] for k, v in seen.items()}
        known = await asyncio.to_thread(writes.known_nfts, self.db, self.chain_id, seen, first_seen)
        known.update(self._in_flight.nfts)
        wanted = [(k[0], k[1], *v) for k, v in sorted(seen.items()) if k not in known]
        return await nft_rows(self.calls, self.fetcher, self.chain_id, wanted) if wanted else []

    async def _balances(self, bundles: Sequence[BlockBundle]) -> list[list[BalanceRow]]:
        """Per block, the balance of each address it touched, as of that block."""
        return await self.balances.rows(bundles)

    def _count(self, batch: Batch) -> None:
        self.stats.height = batch.bundles[-1].block.number
        self.stats.head = max(self.stats.head, self.stats.height)
        self.stats.blocks += len(batch.bundles)
        self.stats.transactions += sum(len(b.txs) for b in batch.bundles)
        self.stats.batches += 1


def extract(chain_id: int, raw: RawBlock) -> BlockBundle:
    """All rows of one block (pure)."""
    txs = tx_rows(chain_id, raw.block, raw.receipts)
    block = block_row(chain_id, raw.block, txs)
    transfers = transfer_rows(chain_id, block.number, block.timestamp, raw.receipts)
    internals = internal_rows(chain_id, txs, raw.traces) if raw.traces is not None else []
    return BlockBundle(
        block=block,
        txs=tuple(txs),
        transfers=tuple(transfers),
        internal_txs=tuple(internals),
        contracts=tuple(contract_rows(chain_id, txs, internals)),
        activity=activity(txs, transfers, internals),
        icm=tuple(icm_rows(chain_id, block.number, block.timestamp, raw.receipts)),
        logs=tuple(log_rows(chain_id, block.number, raw.receipts)),
    )


async def _unless_failed(step: Awaitable[T], watched: asyncio.Task[None]) -> T:
    """`step`'s result, or `watched`'s exception should that stage end first: a stage
    waiting on a queue must not wait on a peer that is gone."""
    task = asyncio.ensure_future(step)
    await asyncio.wait((task, watched), return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        return task.result()
    task.cancel()
    watched.result()  # raises the stage's exception
    raise RuntimeError("the index writer stopped before its input ended")


def _consistent(raws: list[RawBlock]) -> list[RawBlock]:
    """The prefix in which each block's parent is the previous one (the node may reorg while
    a range is fetched; the rest is fetched again)."""
    for i in range(1, len(raws)):
        if raws[i].block["parentHash"].lower() != raws[i - 1].block["hash"].lower():
            return raws[:i]
    return raws
