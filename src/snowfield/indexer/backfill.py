"""A parallel backfill: this process plans the chain's history into ranges (unless another did),
writes the ranges it can claim, and, following, takes the head when no other process follows
it. Every process runs the same code; they coordinate through PostgreSQL only
(store/backfill_ranges.py: claimed ranges under advisory locks that die with their session)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from snowfield.indexer.indexer import Indexer
from snowfield.indexer.rollups import compute as compute_rollups
from snowfield.store import backfill_ranges, writes
from snowfield.store.backfill_ranges import Claims

log = logging.getLogger("snowfield.indexer")


async def run(
    ranges: Indexer,
    head: Indexer,
    *,
    range_blocks: int,
    until: int | None,
    follow: bool,
    poll: float,
    stop: asyncio.Event,
) -> None:
    """`ranges` writes claimed ranges, `head` follows the tip: two indexers of one chain, each
    with its own pipeline state (balances in flight, the range it writes)."""
    db, chain_id = ranges.db, ranges.chain_id
    backfill_ranges.require_postgresql(db)
    last = await ranges.source.head() if until is None else until
    cp = await asyncio.to_thread(writes.checkpoint, db, chain_id)
    first = 0 if cp is None else cp[0] + 1
    if await asyncio.to_thread(backfill_ranges.plan, db, chain_id, first, last, range_blocks):
        log.info(
            "planned blocks %d-%d of chain %s in ranges of %d", first, last, chain_id, range_blocks
        )
    ranges.rollups = head.rollups = None  # built once, in order, when the plan is finished
    ranges.token_balances.unknown_from_node = True  # a range starts mid-history
    async with asyncio.TaskGroup() as group:
        group.create_task(work_ranges(ranges, stop, poll))
        if follow:
            group.create_task(follow_head(head, stop, poll))
    if not follow:
        await asyncio.to_thread(
            backfill_ranges.finish, db, chain_id, compute_rollups, int(time.time())
        )


async def work_ranges(indexer: Indexer, stop: asyncio.Event, poll: float) -> None:
    """Claims and writes ranges until every range is written; a range another worker holds is
    waited for (should that worker die, its lock goes with its connection and this one may
    claim the range, resuming from the range's last written batch)."""
    db, chain_id = indexer.db, indexer.chain_id
    claims = await asyncio.to_thread(Claims, db)
    try:
        while not stop.is_set():
            claim = await asyncio.to_thread(claims.claim, chain_id)
            if claim is None:
                if await asyncio.to_thread(backfill_ranges.backfill_done, db, chain_id):
                    return
                await _pause(stop, poll)
                continue
            indexer.range_start = claim.start
            try:
                await indexer.sync(claim.end)
                log.info("range %d-%s of chain %s written", claim.start, claim.end, chain_id)
            except Exception as exc:  # the node or the database: give the range back, retry
                log.warning("range %d of chain %s failed, retrying: %s", claim.start, chain_id, exc)
                await _pause(stop, poll)
            finally:
                await asyncio.to_thread(claims.release, claim)
    finally:
        await asyncio.to_thread(claims.close)


async def follow_head(indexer: Indexer, stop: asyncio.Event, poll: float) -> None:
    """Follows the head once no other process does (one holds the chain's follower lock); the
    blocks past the plan go in the tip's row until the plan is finished, then the plain way."""
    db, chain_id = indexer.db, indexer.chain_id
    claims = await asyncio.to_thread(Claims, db)
    try:
        while not await asyncio.to_thread(claims.lead, chain_id):
            if stop.is_set():
                return
            await _pause(stop, poll)
        log.info("following the head of chain %s", chain_id)
        while not stop.is_set():
            tip = await asyncio.to_thread(backfill_ranges.tip_start, db, chain_id)
            indexer.range_start = tip
            indexer.rollups = compute_rollups if tip is None else None
            try:
                await indexer.sync()
                if tip is None:
                    await indexer.reindex_nfts()
                elif await asyncio.to_thread(backfill_ranges.backfill_done, db, chain_id):
                    await asyncio.to_thread(
                        backfill_ranges.finish, db, chain_id, compute_rollups, int(time.time())
                    )
                    log.info("the backfill of chain %s is complete", chain_id)
            except Exception as exc:  # any node or network failure: log, back off, retry
                log.warning("indexing the head failed, retrying: %s", exc)
            await _pause(stop, poll)
    finally:
        await asyncio.to_thread(claims.close)


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
