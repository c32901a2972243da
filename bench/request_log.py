"""The request log's CPU per request (issue 32), without an HTTP server or a load generator.

bench/api.py part 3 measures the log under uvicorn and wrk: on a shared 2-core machine its
requests/s and per-CPU-second ratios swung by more than the 5% they judge. Here the data app
answers operation 5 (the first page of one address, bench/api.py's store and URL) called
directly as an ASGI app, in this process, with its request log and without it, in alternating
rounds of the same requests; the logged rounds end by writing their log (the flush the
background task makes every second), so each round pays the whole log. CPU is this process's
(every thread: the loop's and the writer's), per request. Printed: the log's µs per request
(median of the rounds' differences) and its share of the unlogged request, and of the
request as uvicorn serves it (bench/api.py part 3's "CPU per request", given by --served-us).

With --shapes, first the insert alone per row shape (plain sqlite3, 20,000-row batches in
1,024-row INSERTs, one transaction each, a new file per shape): the wide row of schemas 16-23
(16 columns, 10 of them text; TEXT primary key and an index by key), the same unindexed, as
16 and as 10 integer columns, and the row of schema 24 (9 columns, clustered).

    python bench/request_log.py [--size 100000] [--requests 5000] [--rounds 8]
                                [--served-us 119] [--shapes]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.operations.request_log import RequestLog
from snowfield.api.ratelimit import MemoryLimiter
from snowfield.store.database import Database
from snowfield.store.ops_schema import API_REQUEST_LOG

sys.path.insert(0, str(Path(__file__).resolve().parent))
import api as op5_bench  # bench/api.py: the store and the URL

LIMIT = 600.0  # seconds for the whole run


def _scope(path: str, query: str) -> dict[str, Any]:
    """What uvicorn hands the app for wrk's request (fresh per request, as uvicorn's)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 40000),
        "scheme": "http",
        "method": "GET",
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": [(b"host", b"127.0.0.1:8000")],
        "state": {},
    }


async def _round(app: Any, log: RequestLog | None, url: str, requests: int) -> float:
    """CPU seconds of this process per request, the log's write included."""
    path, _, query = url.partition("?")
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    started = time.process_time()
    for _ in range(requests):
        sent.clear()
        await app(_scope(path, query), receive, send)
        assert sent[0]["status"] == 200, sent
    if log is not None:
        await log.flush()
    return (time.process_time() - started) / requests


async def measure(db_path: Path, requests: int, rounds: int) -> tuple[list[float], list[float]]:
    db = Database(str(db_path))
    db.migrate()
    policy = RatePolicy(anonymous=op5_bench.UNLIMITED, keyed=op5_bench.UNLIMITED)
    log = RequestLog(db, interval=3600.0)  # flushed by the rounds themselves
    logged = create_data_app(db, policy=policy, limiter=MemoryLimiter(), requests=log)
    bare = create_data_app(db, policy=policy, limiter=MemoryLimiter(), log_requests=False)
    url = op5_bench.op5_path()
    deadline = time.monotonic() + LIMIT
    await _round(logged, log, url, requests // 5)  # warm-up: caches, the log's contexts
    await _round(bare, None, url, requests // 5)
    with_log, without = [], []
    for n in range(rounds):
        # Which goes first alternates, so that drift over a pair hits both alike.
        pair = [(logged, log, with_log), (bare, None, without)]
        for app, its_log, into in pair if n % 2 == 0 else pair[::-1]:
            into.append(await _round(app, its_log, url, requests))
        print(f"  round {n + 1}: {with_log[-1] * 1e6:7.2f} µs logged, {without[-1] * 1e6:7.2f}"
              " µs without the log", flush=True)  # fmt: skip
        if time.monotonic() > deadline:
            raise SystemExit(f"the rounds took over {LIMIT:.0f} s")
    await log.close()
    op5_bench.clear_request_logs([db_path])
    db.close()
    return with_log, without


_PATH = "/v1/chains/43112/addresses/0x5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed/transactions"
_ROUTE = "/v1/chains/{chainId}/addresses/{address}/transactions"
_WIDE = (
    "CREATE TABLE r (log_id TEXT PRIMARY KEY, at_ms BIGINT NOT NULL, key_id TEXT, key_name TEXT,"
    " request_type TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL, route TEXT NOT NULL,"
    " status BIGINT NOT NULL, chain_id TEXT, rpc_method TEXT, latency_ms DOUBLE PRECISION NOT"
    " NULL, credits BIGINT NOT NULL, ip TEXT NOT NULL, host TEXT NOT NULL, user_agent TEXT NOT"
    " NULL)"
)
_SHAPES: dict[str, tuple[tuple[str, ...], Any]] = {
    "wide, indexed (schemas 16-23)": (
        (_WIDE, "CREATE INDEX r_by_key ON r (key_id, at_ms, log_id)"),
        lambda n: (f"{n:028x}", 1_700_000_000_000 + n, "k1", "name", "data", "GET", _PATH,
                   _ROUTE, 200, "43112", None, 0.123, 20, "127.0.0.1", "127.0.0.1:8000", "wrk"),
    ),
    "wide, unindexed": (
        (_WIDE.replace(" PRIMARY KEY", ""),),
        lambda n: (f"{n:028x}", 1_700_000_000_000 + n, "k1", "name", "data", "GET", _PATH,
                   _ROUTE, 200, "43112", None, 0.123, 20, "127.0.0.1", "127.0.0.1:8000", "wrk"),
    ),
    "16 integers, unindexed": (
        (f"CREATE TABLE r ({', '.join(f'c{i} BIGINT' for i in range(16))})",),
        lambda n: (n, 1_700_000_000_000 + n, 1, 1, 1, 1, 7, 3, 200, 43112, 0, 123, 20, 1, 1, 1),
    ),
    "10 integers, unindexed": (
        (f"CREATE TABLE r ({', '.join(f'c{i} BIGINT' for i in range(10))})",),
        lambda n: (n, 1_700_000_000_000 + n, 1, 7, 3, 200, 43112, 123, 20, 1),
    ),
    "schema 24 (9 columns, clustered)": (
        (API_REQUEST_LOG.replace("api_request_log", "r"),),
        lambda n: ("k1", 1_700_000_000_000 + n // 10, n, 12345, _PATH, 200, "43112", 0.123, 20),
    ),
}  # fmt: skip
_BATCH, _CHUNK, _BATCHES = 20_480, 1_024, 6


def shapes() -> None:
    """µs per row of each shape's insert and commit: median over batches after the first."""
    print(f"row shapes: {_BATCHES} batches of {_BATCH:,} rows in {_CHUNK:,}-row INSERTs each")
    for name, (ddl, row) in _SHAPES.items():
        with tempfile.TemporaryDirectory() as tmp:
            conn = sqlite3.connect(f"{tmp}/shape.db", isolation_level=None)
            for pragma in ("page_size=16384", "journal_mode=WAL", "synchronous=NORMAL"):
                conn.execute(f"PRAGMA {pragma}").fetchall()
            for statement in ddl:
                conn.execute(statement)
            width = len(row(0))
            marks = ", ".join([f"({', '.join('?' * width)})"] * _CHUNK)
            insert = f"INSERT INTO r VALUES {marks}"
            times = []
            for b in range(_BATCHES):
                rows = [row(b * _BATCH + n) for n in range(_BATCH)]
                started = time.thread_time()
                conn.execute("BEGIN")
                for at in range(0, _BATCH, _CHUNK):
                    conn.execute(
                        insert, tuple(itertools.chain.from_iterable(rows[at : at + _CHUNK]))
                    )
                conn.execute("COMMIT")
                times.append((time.thread_time() - started) / _BATCH * 1e6)
            conn.close()
        later = times[1:]
        print(f"  {name:<34}{statistics.median(later):6.2f} µs a row"
              f" (batches {min(later):.2f}-{max(later):.2f})", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="bench/api.py's store")
    parser.add_argument("--requests", type=int, default=5_000, help="per round")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument(
        "--served-us", type=float, default=119.0,
        help="CPU µs of one request served by uvicorn (bench/api.py part 3), for the share",
    )  # fmt: skip
    parser.add_argument("--shapes", action="store_true", help="first the row shapes' inserts")
    args = parser.parse_args()
    if args.shapes:
        shapes()
    path = op5_bench.database(args.size)
    print(f"operation 5 in-process, {args.requests:,} requests a round, {args.rounds} rounds"
          f" (1-minute load average {op5_bench.load_average()}):", flush=True)  # fmt: skip
    with_log, without = asyncio.run(measure(path, args.requests, args.rounds))
    costs = [(a - b) * 1e6 for a, b in zip(with_log, without, strict=True)]
    bare = statistics.median(without) * 1e6
    cost = statistics.median(costs)
    print(f"  the log: {cost:+.2f} µs a request (median of the rounds' differences; spread"
          f" {min(costs):+.2f} to {max(costs):+.2f}), {cost / bare:+.1%} of the unlogged"
          f" in-process request ({bare:.1f} µs), {cost / args.served_us:+.1%} of a request"
          f" served by uvicorn ({args.served_us:.0f} µs; target <= 5%)")  # fmt: skip
    print(f"  (1-minute load average after: {op5_bench.load_average()})")


if __name__ == "__main__":
    main()
