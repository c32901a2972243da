"""A parallel backfill on PostgreSQL: three `snowfield index --parallel-backfill` processes split
the chain's history through claimed ranges; one is killed with SIGKILL mid-way; the store ends
with the rows one process writes alone (a whole-store dump compared)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from snowfield.rpc.client import RpcClient
from snowfield.store import backfill_ranges, writes
from snowfield.store.database import Database
from snowfield.store.dump import INDEXED, dump
from snowfield.testing import (
    DEV_KEYS,
    database_urls,
    index_node,
    open_database,
    run_demo_rounds,
    serve_devnet,
)
from snowfield.workload.demo import run_demo
from tests.helpers import rpc_reply

CHAIN = 43112
# Documents are a render cache (NULL: operation 5 renders from the rows); compared apart.
DOCUMENTED = ("transactions", "address_txs")
# Their cached renderings: a write forgets those a later batch made stale (read_model.py) and
# readers render them again, so which are present depends on the workers' order; address_txs'
# copy of the nativeTransaction (schema 27 on PostgreSQL) is one of them.
CACHES = ("document", "native_document")
ROLLUPS = {
    "rollups": "chain_id, span, bucket",
    "rollup_members": "chain_id, kind, span, bucket, member",
    "rollup_first_seen": "chain_id, kind, member",
}


@pytest.fixture
def pg_urls(tmp_path: Path) -> Iterator[tuple[str, str]]:
    if not os.environ.get("SNOWFIELD_TEST_PG"):
        pytest.skip("set SNOWFIELD_TEST_PG=1: a parallel backfill coordinates through PostgreSQL")
    first = database_urls(tmp_path)[1]
    second = database_urls(tmp_path)[1]
    yield first, second


def worker(rpc: str, url: str, until: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "snowfield", "index", "--rpc", rpc, "--db", url,
            "--until", str(until), "--batch-blocks", "2", "--backfill-range-blocks", "6",
            "--parallel-backfill", "--no-discover", "--rpc-concurrency", "1",
            "--log-level", "warn",
        ],
        stderr=subprocess.PIPE,
    )  # fmt: skip


def _columns(db: Database, table: str) -> list[str]:
    rows = db.query(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = ?"
        " AND table_name = ? ORDER BY ordinal_position",
        (db.url.schema, table),
    )
    return [r[0] for r in rows]


def split_documents(db: Database) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """The whole store's rows without their cached renderings (CACHES), and those apart."""
    rows: dict[str, list[Any]] = {**dump(db), **dump(db, ROLLUPS)}
    documents = {}
    for table in DOCUMENTED:
        at = [i for i, c in enumerate(_columns(db, table)) if c in CACHES]
        documents[table] = [tuple(r[i] for i in at) for r in rows[table]]
        rows[table] = [tuple(v for i, v in enumerate(r) if i not in at) for r in rows[table]]
    return rows, documents


Split = tuple[dict[str, list[Any]], dict[str, list[Any]]]


def assert_same_store(written: Split, reference: Split) -> None:
    """The rows one process writes alone; a document, where both have one, the same."""
    (rows, documents), (ref_rows, ref_documents) = written, reference
    for table in (*INDEXED, *ROLLUPS):
        assert rows[table] == ref_rows[table], table
    for table in DOCUMENTED:
        pairs = zip(documents[table], ref_documents[table], strict=True)
        differing = [
            (d, r)
            for ds, rs in pairs
            for d, r in zip(ds, rs, strict=True)
            if d is not None and r is not None and d != r
        ]
        assert not differing, (table, differing[:1])


def progress(url: str) -> int:
    """Blocks written by the workers so far (ranges' progress)."""
    db = Database(url)
    try:
        if not db.query_one("SELECT to_regclass('backfill_ranges')"):
            return 0
        return sum(n - s for s, _, n in backfill_ranges.ranges(db, CHAIN))
    except Exception:  # the schema is being created
        return 0
    finally:
        db.close()


def test_killed_worker_loses_and_duplicates_nothing(pg_urls: tuple[str, str]) -> None:
    reference_url, parallel_url = pg_urls
    with serve_devnet() as node:
        run_demo_rounds(node.rpc, 3)
        head = int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16)
        with open_database(reference_url) as db:
            index_node(db, node.rpc, until=head, batch_blocks=2)
            reference, reference_docs = split_documents(db)
            reference_checkpoint = writes.checkpoint(db, CHAIN)
        assert len(reference["blocks"]) == head + 1 and reference["transfers"]

        with open_database(parallel_url) as db:
            procs = [worker(node.rpc, parallel_url, head) for _ in range(3)]
            deadline = time.monotonic() + 120
            while progress(parallel_url) < head // 3 and time.monotonic() < deadline:
                time.sleep(0.02)
            procs[0].kill()  # SIGKILL: its claims go with its connection
            procs[0].communicate()
            left = [
                r for r in backfill_ranges.ranges(db, CHAIN) if r[1] is not None and r[2] <= r[1]
            ]
            assert left, "the kill came before the backfill was done"
            for proc in procs[1:]:
                _, err = proc.communicate(timeout=300)
                assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
            assert backfill_ranges.ranges(db, CHAIN) == [], "the finished plan is gone"
            assert writes.checkpoint(db, CHAIN) == reference_checkpoint
            assert reference_checkpoint is not None and reference_checkpoint[0] == head
            assert_same_store(split_documents(db), (reference, reference_docs))


def test_one_worker_follows_the_head_and_finishes_the_plan(pg_urls: tuple[str, str]) -> None:
    reference_url, parallel_url = pg_urls
    with serve_devnet() as node:
        run_demo_rounds(node.rpc, 1)
        with open_database(parallel_url) as db:
            argv = ["--poll-interval", "0.1"]
            procs = [follower(node.rpc, parallel_url, argv) for _ in range(2)]
            try:
                head = int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16)
                wait_for(lambda: _height(db) >= head and not backfill_ranges.ranges(db, CHAIN))
                # New blocks past the plan: the head follower indexes them.
                run_demo_rounds(node.rpc, 1)
                head = int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16)
                wait_for(lambda: _height(db) >= head)
            finally:
                for proc in procs:
                    proc.terminate()
                    _, err = proc.communicate(timeout=60)
                    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
            written = split_documents(db)
        with open_database(reference_url) as ref:
            index_node(ref, node.rpc, until=head, batch_blocks=2)
            assert_same_store(written, split_documents(ref))


def follower(rpc: str, url: str, extra: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "snowfield", "index", "--rpc", rpc, "--db", url,
            "--batch-blocks", "2", "--backfill-range-blocks", "6", "--parallel-backfill",
            "--no-discover", "--rpc-concurrency", "1", "--log-level", "warn", *extra,
        ],
        stderr=subprocess.PIPE,
    )  # fmt: skip


def _height(db: Database) -> int:
    cp = writes.checkpoint(db, CHAIN)
    return -1 if cp is None else cp[0]


def wait_for(done: Callable[[], bool], limit: float = 180) -> None:
    deadline = time.monotonic() + limit
    while not done():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_later_ranges_written_first_show_the_first_seen_nft(pg_urls: tuple[str, str]) -> None:
    """Every range but the one with an ERC-1155 token id's first transfer (held here meanwhile)
    is written first: the token's contract is known from the ranges before, and each later
    range saw the id first in its own blocks and rendered its documents with that row (the
    metadata time of its own block). The earliest row wins in `nfts`; the documents must then
    be the ones a single process renders, or NULL (render from the rows)."""
    reference_url, parallel_url = pg_urls
    with serve_devnet() as node:
        demo_rounds_a_minute_apart(node.rpc, 3)  # an NFT row's time is its first block's
        head = int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16)
        with open_database(reference_url) as db:
            index_node(db, node.rpc, until=head, batch_blocks=2)
            reference, reference_docs = split_documents(db)
            first, later = db.query_one(
                "SELECT MIN(block_number), MAX(block_number) FROM transfers"
                " WHERE erc_type = 'ERC-1155' AND token_id = '1'"
            ) or (None, None)
        assert first is not None and later is not None and later >= (first // 6 + 1) * 6, (
            "the demo transfers token id 1 in more than one range"
        )
        with open_database(parallel_url) as db:
            assert backfill_ranges.plan(db, CHAIN, 0, head, 6)
            # One session per held range: a session's advisory locks are reentrant, so one
            # session would claim the lowest range again and again.
            held: list[backfill_ranges.Claims] = []
            try:
                while True:
                    held.append(backfill_ranges.Claims(db))
                    claim = held[-1].claim(CHAIN)
                    assert claim is not None and claim.start <= first
                    if claim.end >= first:
                        break
                for claims in held[:-1]:  # the ranges before: the token's contract is known
                    claims.close()
                held = held[-1:]
                proc = worker(node.rpc, parallel_url, head)
                wait_for(
                    lambda: all(
                        n > e
                        for s, e, n in backfill_ranges.ranges(db, CHAIN)
                        if e and not s <= first <= e
                    )
                )
            finally:
                for claims in held:  # the worker now claims the held ranges and finishes
                    claims.close()
            _, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
            written = split_documents(db)
    assert_same_store(written, (reference, reference_docs))


def demo_rounds_a_minute_apart(rpc: str, rounds: int) -> None:
    """The demo's rounds on one set of contracts, the chain's clock a minute on after each."""

    def after(line: str) -> None:
        if line.startswith("round "):
            assert "result" in rpc_reply(rpc, "evm_increaseTime", 60)

    async def go() -> None:
        async with RpcClient(rpc) as client:
            await run_demo(client, DEV_KEYS, rounds=rounds, interval=0, stop=None, log=after)

    asyncio.run(go())
