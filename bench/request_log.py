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

    python bench/request_log.py [--size 100000] [--requests 5000] [--rounds 8]
                                [--served-us 119]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.operations.request_log import RequestLog
from snowfield.api.ratelimit import MemoryLimiter
from snowfield.store.database import Database

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="bench/api.py's store")
    parser.add_argument("--requests", type=int, default=5_000, help="per round")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument(
        "--served-us", type=float, default=119.0,
        help="CPU µs of one request served by uvicorn (bench/api.py part 3), for the share",
    )  # fmt: skip
    args = parser.parse_args()
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
