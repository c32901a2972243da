"""The scale path on PostgreSQL, each figure a ratio to its baseline measured in the same run.

1. Parallel backfill (`--part backfill`): a devnet in its own process with demo traffic and
   `--blocks` more blocks of transfers; the node's raw batched-fetch ceiling (blocks, receipts
   and traces fetched as the indexer fetches them, nothing written) against `snowfield index
   --parallel-backfill` with 1, 2 and 4 worker processes into a fresh PostgreSQL schema each:
   blocks/s, as a share of the ceiling and against 1 worker.
2. Size (`--part size`): PostgreSQL stores of synthetic rows written through the project's
   writer (`write_batch`) from bench/scale_traffic.py's chain, which has a real one's skew:
   Zipf-distributed senders and recipients over a population of a tenth of the store's
   transactions, a DEX router and a stablecoin taking a large share of the calls, ERC-20,
   ERC-721 (with `nfts` rows) and ERC-1155 single and batch transfers with their logs, other
   contracts' logs, native transfers, internal calls, contract creations. Sizes `--transactions`
   and a tenth of it (the baseline). Latency of operation 5, the native and ERC-20 balance
   operations, per class of address across the skew (the hot contracts; the busiest addresses,
   busier the larger the store; the traffic median; the population median; the coldest), and
   of `transactions/{txHash}`: p50 and p99, large over small (targets: p50 <= 1.2x, p99 <=
   1.5x); the store's size per million transactions and its rows per transaction, beside a
   SQLite store of the same rows at the baseline size (cached under .bench/scale/).

The stores are kept in PostgreSQL schemas named after their size and the generator's version and
reused (`--rebuild` builds them again). Loopback only; every loop is bounded in count and time.
Each build prints its time split into generating the rows, `write_batch` and (with `--bulk`)
building the writer's deferred secondary indexes (store/bulk_load.py), and the writer's
transactions/s (generation left out). A build's time limit grows with its size.
`--transactions 10000000` is the issue's size; the figures in docs/operations.md come from
200k and 1M runs.

    python bench/scale.py [--part all|backfill|size] [--transactions 200000] [--bulk] [--rebuild]
                          [--blocks 300] [--workers 1 2 4] [--pg postgresql://127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import httpx
import psycopg

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.cli.compose import data_api_error
from snowfield.store import usage_log
from snowfield.store.bulk_load import deferred_indexes
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.writes import upsert_chain, write_batch
from snowfield.testing import DevnetProcess, free_port, run_demo_rounds, serve_asgi

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".bench" / "scale"
RUN_LIMIT = 1_800.0  # seconds for one backfill run, and at least for one store build
# A store build's limit grows with its size: 1M of scale_traffic's transactions took 220 s with
# --bulk, generating the rows included (docs/operations.md), and 1M ran ~12% slower per
# transaction than 100k; 10M at that trend is ~40 minutes, over RUN_LIMIT. 900 s per million
# (150 minutes at 10M): 600 left a 10M build sharing the machine with a test run at the edge
# of its limit (5% in 298 s).
BUILD_SECONDS_PER_MILLION = 900.0
ROUNDS, PER_ROUND = 10, 50  # latency: sizes interleave each round (500 samples a cell:
# fewer left the p50 ratios of ~1 ms requests swinging by +-30% on a shared machine)
CLASS_ADDRESSES = 4  # addresses per class of the skew, cycled through
LATENCY_LIMIT = 900.0  # seconds for all latency rounds
CENSUS = ("address_txs", "transfers", "logs", "internal_txs", "token_balance_history", "balances",
          "nfts")  # fmt: skip
P50_FLAT, P99_FLAT = 1.2, 1.5
UNLIMITED = 10**12


def _bench_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


st = _bench_module("scale_traffic")


def _schema_url(pg: str, schema: str) -> str:
    return f"{pg}?schema={schema}"


def _drop(pg: str, schema: str) -> None:
    with psycopg.connect(pg, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


# -- 1. parallel backfill ---------------------------------------------------------------------


def traffic(rpc: str, rounds: int, blocks: int) -> int:
    """Demo traffic, then `blocks` transfers each in its own block; the head."""
    from eth_account import Account

    from snowfield.rpc.client import RpcClient
    from snowfield.testing import DEV_KEYS

    run_demo_rounds(rpc, rounds)

    async def send() -> int:
        key = DEV_KEYS[0]
        sender = Account.from_key(key).address
        async with RpcClient(rpc) as client:
            nonce = int(await client.call("eth_getTransactionCount", sender, "latest"), 16)
            for i in range(blocks):
                tx = {"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "value": 1 + i,
                      "gas": 21_000, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9,
                      "nonce": nonce + i, "chainId": 43112, "type": 2}  # fmt: skip
                raw = "0x" + bytes(Account.sign_transaction(tx, key).raw_transaction).hex()
                await client.call("eth_sendRawTransaction", raw)
            return int(await client.call("eth_blockNumber"), 16)

    return asyncio.run(send())


def fetch_ceiling(rpc: str, head: int, batch: int) -> float:
    """Blocks/s of fetching 0..head as the indexer does (batched, concurrent), writing nothing."""
    from snowfield.indexer.calls import Calls
    from snowfield.indexer.source import NodeSource
    from snowfield.rpc.client import RpcClient

    async def go() -> float:
        async with RpcClient(rpc, retries=5) as client:
            source = NodeSource(Calls(client), "auto")
            began = time.perf_counter()
            for start in range(0, head + 1, batch):
                got = await source.blocks(list(range(start, min(head, start + batch - 1) + 1)))
                assert got, start
            return (head + 1) / (time.perf_counter() - began)

    return asyncio.run(go())


def backfill(rpc: str, pg: str, head: int, workers: int, batch: int) -> float:
    """Blocks/s of `workers` parallel-backfill processes from nothing to `head`."""
    schema = f"bench_backfill_{workers}_{time.monotonic_ns()}"
    url = _schema_url(pg, schema)
    Database(url).migrate()
    argv = [sys.executable, "-m", "snowfield", "index", "--rpc", rpc, "--db", url,
            "--until", str(head), "--batch-blocks", str(batch),
            "--backfill-range-blocks", str(batch * 2), "--parallel-backfill",
            "--no-discover", "--log-level", "warn"]  # fmt: skip
    try:
        began = time.perf_counter()
        procs = [subprocess.Popen(argv, stderr=subprocess.PIPE) for _ in range(workers)]
        for proc in procs:
            _, err = proc.communicate(timeout=RUN_LIMIT)
            if proc.returncode != 0:
                raise SystemExit(err.decode(errors="replace")[-2000:])
        elapsed = time.perf_counter() - began
        db = Database(url)
        row = db.query_one("SELECT height FROM checkpoints WHERE chain_id = 43112")
        db.close()
        assert row is not None and int(row[0]) == head, row
        return (head + 1) / elapsed
    finally:
        _drop(pg, schema)


def run_backfill(pg: str, rounds: int, blocks: int, workers: Sequence[int], batch: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        node = DevnetProcess(Path(tmp) / "devnet", free_port())
        node.start()
        try:
            head = traffic(node.rpc, rounds, blocks)
            print(f"devnet: {head + 1} blocks (demo rounds {rounds}, {blocks} transfer blocks)")
            ceiling = fetch_ceiling(node.rpc, head, batch)
            print(f"  raw batched fetch (ceiling): {ceiling:8.1f} blocks/s")
            one = None
            for count in workers:
                rate = backfill(node.rpc, pg, head, count, batch)
                one = one or rate
                print(f"  {count} worker(s): {rate:8.1f} blocks/s = {rate / ceiling:5.2f}x the"
                      f" ceiling, {rate / one:5.2f}x 1 worker", flush=True)  # fmt: skip
        finally:
            node.stop()


# -- 2. size --------------------------------------------------------------------------------


def _build(db: Database, size: int, *, bulk: bool) -> None:
    """Writes the store of `size` body transactions: scale_traffic's blocks, one `write_batch`
    per BLOCKS_PER_BATCH blocks; generating and writing are timed apart."""
    upsert_chain(db, ChainRow(st.CHAIN_ID, "Bench C-Chain", "local", "http://127.0.0.1:9650/rpc",
                              description="synthetic rows of bench/scale.py"))  # fmt: skip
    traffic = st.Traffic(size, seed=size)
    first, tokens = traffic.genesis()
    write_batch(db, st.CHAIN_ID, [first], tokens)
    began = time.monotonic()
    generating = writing = 0.0
    limit = max(RUN_LIMIT, size / 1e6 * BUILD_SECONDS_PER_MILLION)
    with deferred_indexes(db) if bulk else contextlib.nullcontext():
        for start in range(1, size // st.PER_BLOCK + 1, st.BLOCKS_PER_BATCH):
            t0 = time.perf_counter()
            bundles, nfts = traffic.blocks(start, st.BLOCKS_PER_BATCH)
            t1 = time.perf_counter()
            write_batch(db, st.CHAIN_ID, bundles, nfts=nfts)
            generating, writing = generating + t1 - t0, writing + time.perf_counter() - t1
            done = (start + st.BLOCKS_PER_BATCH - 1) * st.PER_BLOCK
            if time.monotonic() - began > limit:
                raise SystemExit(f"building {size:,} took over {limit:.0f} s; aborted")
            print(f"  {size:>11,} transactions: {done / size:4.0%} in"
                  f" {time.monotonic() - began:.0f} s", flush=True)  # fmt: skip
        loaded = time.monotonic() - began
    elapsed = time.monotonic() - began
    indexes = elapsed - loaded
    writer = writing + indexes
    print(f"  {size:>11,} transactions: {elapsed:.1f} s = {generating:.1f} s generating the rows"
          f" + {writing:.1f} s write_batch" + (f" + {indexes:.1f} s building the deferred indexes"
          if bulk else "") + f"; the writer: {size / writer:,.0f} tx/s", flush=True)  # fmt: skip
    with db.transaction() as w:
        w.execute("ANALYZE")


def store(pg: str, size: int, *, bulk: bool = False, rebuild: bool = False) -> Database:
    """The PostgreSQL store of `size` body transactions, built when missing (or `rebuild`);
    `bulk`: with the writer's deferred secondary indexes (store/bulk_load.py), built again at
    the end."""
    schema = f"bench_scale_{size}_t{st.GENERATOR_VERSION}"
    db = Database(_schema_url(pg, schema), query_timeout=300)
    db.migrate()
    if db.meta("bench_scale_built") == str(size) and not rebuild:
        print(f"  {size:>11,} transactions: cached in schema {schema}")
        return db
    _check_size(size)
    _drop(pg, schema)  # a build that died midway leaves rows that would conflict
    db.close()
    db = Database(_schema_url(pg, schema), query_timeout=300)
    db.migrate()
    _build(db, size, bulk=bulk)
    with db.transaction() as w:
        w.execute("INSERT INTO meta (key, value) VALUES ('bench_scale_built', ?)", (str(size),))
    return db


def sqlite_store(size: int) -> Path:
    """The same rows in a SQLite file (cached under .bench/scale/), for its size beside."""
    path = CACHE / f"scale-{size}-t{st.GENERATOR_VERSION}-schema{SCHEMA_VERSION}.db"
    if path.exists():
        return path
    _check_size(size)
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    db = Database(str(partial), query_timeout=300)
    db.migrate()
    print(f"  SQLite, {size:,} transactions:", flush=True)
    _build(db, size, bulk=False)
    db.query("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    partial.replace(path)
    return path


def _check_size(size: int) -> None:
    if size % (st.PER_BLOCK * st.BLOCKS_PER_BATCH):
        raise SystemExit(f"sizes must be multiples of {st.PER_BLOCK * st.BLOCKS_PER_BATCH:,}")


def pg_bytes(db: Database) -> int:
    row = db.query_one(
        "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
        " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind = 'r'",
        (db.url.schema,),
    )
    return int(row[0]) if row else 0


@functools.cache
def classes(size: int) -> dict[str, list[str]]:
    """Addresses across the skew, by class: the hot contracts; the draw's busiest addresses
    (more transactions the larger the store); the traffic median (the rank below which half
    the draws fall); the population median; the coldest ranks (a transaction or two, or none)."""
    zipf = st.Zipf(st.population(size), st.ZIPF_S)
    warm, last = zipf.expected_rank(0.5), st.population(size) - 1
    return {
        "hot contract": list(st.HOT_CONTRACTS),
        "hot": [st.holder(r) for r in range(CLASS_ADDRESSES)],
        "traffic median": [st.holder(warm + r) for r in range(CLASS_ADDRESSES)],
        "median": [st.holder(last // 2 + r) for r in range(CLASS_ADDRESSES)],
        "cold": [st.holder(last - r) for r in range(CLASS_ADDRESSES)],
    }


def paths(size: int, rng: random.Random) -> dict[str, list[str]]:
    """Operation -> the URLs a round cycles through."""
    base = f"/v1/chains/{st.CHAIN_ID}"
    found: dict[str, list[str]] = {}
    for name, who in classes(size).items():
        found[f"operation 5, {name}"] = [f"{base}/addresses/{a}/transactions?pageSize=10"
                                         for a in who]  # fmt: skip
        found[f"getNative, {name}"] = [f"{base}/addresses/{a}/balances:getNative" for a in who]
        found[f"listErc20, {name}"] = [f"{base}/addresses/{a}/balances:listErc20?pageSize=10"
                                       for a in who]  # fmt: skip
    sample = rng.sample(range(size), PER_ROUND)
    found["transactions/{txHash}"] = [f"{base}/transactions/{st.tx_hash(g)}" for g in sample]
    return found


def served(base: str, wanted: dict[str, list[str]]) -> list[str]:
    """The operations this build serves (the balance operations may not be merged yet)."""
    found = []
    for op, urls in wanted.items():
        reply = httpx.get(base + urls[0], timeout=60)
        if reply.status_code == 404 and "no such route" in reply.text:
            print(f"  {op}: not served by this build, skipped")
            continue
        found.append(op)
    return found


def timed(client: httpx.Client, path: str) -> float:
    began = time.perf_counter()
    reply = client.get(path)
    elapsed = time.perf_counter() - began
    if reply.status_code != 200:
        raise SystemExit(f"{path}: {reply.status_code} {reply.text[:300]}")
    return elapsed


def run_size(pg: str, size: int, *, bulk: bool = False, rebuild: bool = False) -> None:
    unit = st.PER_BLOCK * st.BLOCKS_PER_BATCH
    small = max(unit, size // 10 // unit * unit)
    sizes = (small, size)
    stores = {n: store(pg, n, bulk=bulk, rebuild=rebuild) for n in sizes}
    # Sized before the latency rounds: the data app logs their requests into the same schema.
    sized = {
        n: f"{pg_bytes(db) / 2**20 / (n / 1e6):8.0f} MiB per million transactions at {n:,};"
        f" {census(db)}"
        for n, db in stores.items()
    }
    rng = random.Random(7)
    samples: dict[tuple[int, str], list[float]] = {}
    policy = RatePolicy(UNLIMITED, UNLIMITED)
    apps = {n: create_data_app(db, policy=policy) for n, db in stores.items()}
    with (
        serve_asgi(apps[small], name="small", render=data_api_error) as a,
        serve_asgi(apps[size], name="large", render=data_api_error) as b,
    ):
        bases = {small: a, size: b}
        ops = served(a, paths(small, rng))
        deadline = time.monotonic() + LATENCY_LIMIT
        for _ in range(ROUNDS):
            for n in sizes:
                with httpx.Client(base_url=bases[n], timeout=60) as client:
                    for op, urls in paths(n, rng).items():
                        if op not in ops:
                            continue
                        timed(client, urls[0])  # warm the connection and the plan
                        found = samples.setdefault((n, op), [])
                        found.extend(timed(client, urls[i % len(urls)]) for i in range(PER_ROUND))
            if time.monotonic() > deadline:
                raise SystemExit(f"latency rounds took over {LATENCY_LIMIT:.0f} s")
    print(f"latency, {size:,} over {small:,} transactions (targets p50 <= {P50_FLAT}x,"
          f" p99 <= {P99_FLAT}x; {ROUNDS} x {PER_ROUND} requests per cell):")  # fmt: skip
    for op in ops:
        q = {n: statistics.quantiles(samples[(n, op)], n=100, method="inclusive") for n in sizes}
        p50 = {n: statistics.median(samples[(n, op)]) for n in sizes}
        print(f"  {op:<34} p50 {p50[small] * 1e3:6.2f} -> {p50[size] * 1e3:6.2f} ms"
              f" = {p50[size] / p50[small]:4.2f}x   p99 {q[small][98] * 1e3:6.2f} ->"
              f" {q[size][98] * 1e3:6.2f} ms = {q[size][98] / q[small][98]:4.2f}x")  # fmt: skip
    for n in sizes:
        print(f"  PostgreSQL store: {sized[n]}")
    sqlite = sqlite_store(small)
    print(f"  SQLite store:     {sqlite.stat().st_size / 2**20 / (small / 1e6):8.0f} MiB per"
          f" million transactions at {small:,} (the same rows)")  # fmt: skip
    for db in stores.values():
        usage_log.clear(db)  # the cached stores keep no request log of the bench's load
        db.close()


def census(db: Database) -> str:
    """Rows per transaction (planner estimates: cheap) and MiB per million transactions of the
    largest tables, indexes included."""
    found = db.query(
        "SELECT c.relname, c.reltuples, pg_total_relation_size(c.oid) FROM pg_class c"
        " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind = 'r'"
        " ORDER BY 3 DESC",
        (db.url.schema,),
    )
    rows = {str(r[0]): float(r[1]) for r in found}
    txs = max(1.0, rows.get("transactions", 1.0))
    per_tx = ", ".join(f"{t} {rows[t] / txs:.2f}" for t in CENSUS if t in rows)
    largest = ", ".join(f"{r[0]} {int(r[2]) / 2**20 / (txs / 1e6):,.0f}" for r in found[:6])
    return f"rows per transaction: {per_tx}\n    MiB per million, largest tables: {largest}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("all", "backfill", "size"), default="all")
    parser.add_argument("--transactions", type=int, default=200_000, help="the large store")
    parser.add_argument("--blocks", type=int, default=300, help="transfer blocks to backfill")
    parser.add_argument("--rounds", type=int, default=2, help="demo traffic rounds")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--batch-blocks", type=int, default=25)
    parser.add_argument("--pg", default="postgresql://127.0.0.1:5432/test")
    parser.add_argument("--bulk", action="store_true",
                        help="build the stores with their secondary indexes deferred")  # fmt: skip
    parser.add_argument("--rebuild", action="store_true", help="build the stores even if cached")
    args = parser.parse_args()
    if args.part in ("all", "backfill"):
        run_backfill(args.pg, args.rounds, args.blocks, args.workers, args.batch_blocks)
    if args.part in ("all", "size"):
        run_size(args.pg, args.transactions, bulk=args.bulk, rebuild=args.rebuild)


if __name__ == "__main__":
    main()
