"""Two `snowfield serve` processes over one store and one Redis, as behind a load balancer: the
rate limit and its `ratelimit-*` headers count across both exactly, and a page token one of
them issues is accepted by the other."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from snowfield.store.database import Database
from tests.api.conftest import ALICE, CHAIN
from tests.api.serve_process import serving

TXS = f"/v1/chains/{CHAIN}/addresses/{ALICE}/transactions"
BUDGET = 400  # compute units per minute for the test's client IP


@pytest.fixture
def redis_url() -> Iterator[str]:
    if not os.environ.get("SNOWFIELD_TEST_REDIS"):
        pytest.skip("set SNOWFIELD_TEST_REDIS=1 to test against Redis at 127.0.0.1:6379")
    # A database number of its own, emptied of the limiter's keys: the serve processes use
    # the default key prefix and count the loopback IP every local test shares.
    url = f"redis://127.0.0.1:6379/{8 + os.getpid() % 8}"
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match="snowfield:rl:*"):
        client.delete(key)
    yield url
    for key in client.scan_iter(match="snowfield:rl:*"):
        client.delete(key)
    client.close()


def _store_url(db: Database) -> str:
    if db.url.schema:
        return f"{db.url.target}?schema={db.url.schema}"
    return db.url.target


def serve(db: Database, redis_url: str) -> contextlib.AbstractContextManager[str]:
    log = Path(tempfile.mkdtemp(prefix="replicas-")) / "serve.log"
    extra = ("--redis", redis_url, "--rate-anonymous", str(BUDGET))
    return serving(_store_url(db), log, extra=extra)


def _fresh_window(client: httpx.Client) -> None:
    """Waits out a window about to end, so the counts below all fall in one."""
    reply = client.get("/openapi.json")
    if "ratelimit-reset" in reply.headers and int(reply.headers["ratelimit-reset"]) < 15:
        time.sleep(int(reply.headers["ratelimit-reset"]) + 1)


def test_two_serve_processes_share_limits_and_page_tokens(filled: Database, redis_url: str) -> None:
    with serve(filled, redis_url) as a, serve(filled, redis_url) as b:
        clients = [httpx.Client(base_url=a, timeout=10), httpx.Client(base_url=b, timeout=10)]
        try:
            # Page tokens: one process's token, the other's next page; both agree.
            first = clients[0].get(TXS, params={"pageSize": 2})
            assert first.status_code == 200, first.text
            token = first.json()["nextPageToken"]
            on_b = clients[1].get(TXS, params={"pageSize": 2, "pageToken": token})
            on_a = clients[0].get(TXS, params={"pageSize": 2, "pageToken": token})
            assert on_b.status_code == 200, on_b.text
            assert on_b.json() == on_a.json() and on_b.json()["transactions"]
            # Limits: turn by turn, each answer's remaining budget counts both processes' use.
            _fresh_window(clients[0])
            remaining: int | None = None
            costs: set[int] = set()
            turn, refused = 0, None
            while turn < BUDGET:
                reply = clients[turn % 2].get(TXS, params={"pageSize": 1})
                turn += 1
                if reply.status_code == 429:
                    refused = reply
                    break
                assert reply.status_code == 200, reply.text
                assert reply.headers["ratelimit-limit"] == str(BUDGET)
                now = int(reply.headers["ratelimit-remaining"])
                if remaining is not None:
                    costs.add(remaining - now)
                remaining = now
            # Every request of this operation cost the same, whichever process counted it.
            assert len(costs) == 1 and min(costs) > 0, costs
            assert refused is not None, "the shared budget ran out"
            assert remaining is not None and remaining < min(costs), (remaining, costs)
            # Spent on one process is spent on the other.
            other = clients[turn % 2].get(TXS, params={"pageSize": 1})
            assert other.status_code == 429
            assert other.headers["ratelimit-remaining"] == refused.headers["ratelimit-remaining"]
            assert refused.headers["ratelimit-remaining"] == str(remaining)
        finally:
            for client in clients:
                client.close()
