"""Metrics rollup cost: the same chain ingested with rollups off and on, same run.

A chain of --blocks blocks with --txs-per-block transactions each (native transfers to a pool of
many addresses and ERC-20 transfers, from 8 senders) spread over --days days is built on our
devnet (no automine; one evm_mine per block at a chosen timestamp). Then `Indexer.sync` from
genesis into fresh SQLite files, alternating rollups off / on (the write path's switch), twice
each; the fastest of each is reported. Per block:
  ingest   the whole indexer (fetch, extract, enrich, write);
  write    write_batch alone (one transaction per batch);
  rollup   the rollup part of write_batch (math and SQL), measured inside the rollups-on runs.
The overhead is rollup / ingest (target <= 25%), and rollup / write for the store alone.

    python bench/metrics.py [--blocks 400] [--txs-per-block 10] [--days 40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from web3 import Web3

from snowfield.indexer.calls import Calls
from snowfield.indexer.indexer import Indexer
from snowfield.rpc.client import DocumentFetcher, RpcClient
from snowfield.store import rollups, writes
from snowfield.store.database import Database
from snowfield.testing import serve_devnet
from snowfield.workload.contracts import call_data, load

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chain import Rpc, keys, sign

CHAIN_ID = 43112
TIME_LIMIT = 600.0


def build_chain(url: str, blocks: int, per_block: int, days: int) -> None:
    """One ERC-20 deployment, then `blocks` blocks spread evenly over `days` days."""
    rpc = Rpc(url)
    senders = keys(8)
    nonces = [0] * len(senders)
    rng = random.Random(5)
    pool = [Web3.to_checksum_address(rng.randbytes(20)) for _ in range(5000)]
    token = load("DemoToken")
    start = int(time.time()) + 3600
    deploy = sign(
        CHAIN_ID, senders[0], 0, None, token.deploy_data("Bench", "BNC", 18, 10**30), gas=3_000_000
    )
    nonces[0] = 1
    tx_hash = rpc.batch([("eth_sendRawTransaction", [deploy])])[0]
    rpc.batch([("evm_mine", [start])])
    receipt = rpc.batch([("eth_getTransactionReceipt", [tx_hash])])[0]
    token_address = Web3.to_checksum_address(receipt["contractAddress"])
    step = days * 86400 // blocks
    started = time.monotonic()
    for b in range(1, blocks):
        sends: list[tuple[str, list[Any]]] = []
        for i in range(per_block):
            s = (b * per_block + i) % len(senders)
            to = pool[rng.randrange(len(pool))]
            if i % 4 == 0:
                data = call_data("transfer(address,uint256)", to, 10**15)
                raw = sign(CHAIN_ID, senders[0], nonces[0], token_address, data, gas=60_000)
                s = 0
            else:
                raw = sign(CHAIN_ID, senders[s], nonces[s], to, value=10**12 + b)
            nonces[s] += 1
            sends.append(("eth_sendRawTransaction", [raw]))
        rpc.batch(sends)
        rpc.batch([("evm_mine", [start + b * step + rng.randrange(max(1, step // 2))])])
        if time.monotonic() - started > TIME_LIMIT:
            raise RuntimeError("chain building took too long")


@contextmanager
def timed(module: Any, name: str, totals: dict[str, float]) -> Iterator[None]:
    """Adds the time spent in module.name to totals[name] while inside (bench instrumentation)."""
    original: Callable[..., Any] = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            totals[name] = totals.get(name, 0.0) + time.perf_counter() - t

    setattr(module, name, wrapper)
    try:
        yield
    finally:
        setattr(module, name, original)


async def ingest(url: str, db_path: Path, with_rollups: bool) -> dict[str, float]:
    db = Database(str(db_path))
    db.migrate()
    totals: dict[str, float] = {}
    fetcher = DocumentFetcher()
    with timed(writes, "write_batch", totals), timed(rollups, "add_batch", totals):
        async with RpcClient(url) as client:
            indexer = Indexer(db, Calls(client), fetcher, CHAIN_ID, batch_blocks=100,
                              rollups=with_rollups)  # fmt: skip
            started = time.perf_counter()
            await indexer.sync()
            totals["ingest"] = time.perf_counter() - started
    await fetcher.aclose()
    db.close()
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", type=int, default=400)
    parser.add_argument("--txs-per-block", type=int, default=10)
    parser.add_argument("--days", type=int, default=40)
    args = parser.parse_args()
    with serve_devnet(block_time=3600.0) as node, tempfile.TemporaryDirectory() as tmp:
        build_chain(node.rpc, args.blocks, args.txs_per_block, args.days)
        runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
        for n, flag in enumerate((False, True, False, True)):
            runs[flag].append(asyncio.run(ingest(node.rpc, Path(tmp) / f"{n}.db", flag)))
    blocks = args.blocks
    off = min(runs[False], key=lambda r: r["ingest"])
    on = min(runs[True], key=lambda r: r["ingest"])
    rollup = min(r["add_batch"] for r in runs[True])
    plain_write = min(r["write_batch"] for r in runs[False])
    ms = 1000 / blocks
    print(f"{'per block (ms)':<28}{'rollups off':>12}{'rollups on':>12}")
    print(f"{'ingest (whole indexer)':<28}{off['ingest'] * ms:>12.3f}{on['ingest'] * ms:>12.3f}")
    print(f"{'write_batch':<28}{off['write_batch'] * ms:>12.3f}{on['write_batch'] * ms:>12.3f}")
    print(f"{'rollup part of write_batch':<28}{'':>12}{rollup * ms:>12.3f}")
    print(f"rollup / plain ingest of the same blocks: {rollup / off['ingest']:.1%} (target <= 25%)")
    print(f"rollup / plain write_batch: {rollup / plain_write:.1%}")
    print(f"ingest on / off: {on['ingest'] / off['ingest']:.2f}x")
    print(f"({blocks} blocks, {blocks * args.txs_per_block} transactions over {args.days} days;"
          f" SQLite; cores: {os.cpu_count()})")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
