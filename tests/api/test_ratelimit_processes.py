"""Rate-limit headers under load from two `snowfield serve` processes sharing one Redis: every
answer's `ratelimit-remaining` is exact (each value of the budget answered once), 429s carry
`ratelimit-reset` and `retry-after`, and together they admit exactly the budget."""

from __future__ import annotations

import os
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from snowfield.store.database import Database
from snowfield.store.keys import create_key
from tests.api.conftest import ChainBuilder, add_chains
from tests.api.serve_process import serving

REDIS_URL = "redis://127.0.0.1:6379/0"
BUDGET = 120  # compute units a minute for the test's key: /v1/chains costs 1
REQUESTS = 180


def test_two_processes_share_one_exact_budget(tmp_path: Path) -> None:
    if not os.environ.get("SNOWFIELD_TEST_REDIS"):
        pytest.skip("set SNOWFIELD_TEST_REDIS=1 to test against Redis at 127.0.0.1:6379")
    url = str(tmp_path / "s.db")
    db = Database(url)
    db.migrate()
    add_chains(db)
    ChainBuilder(db).add(2)
    # A key of its own: its counter in Redis is this test's alone.
    _, secret = create_key(db, "load", rate_per_minute=BUDGET)
    db.close()
    redis = ("--redis", REDIS_URL)
    with (
        serving(url, tmp_path / "a.log", extra=redis) as a,
        serving(url, tmp_path / "b.log", extra=redis) as b,
    ):
        if time.time() % 60 > 40:  # the whole load inside one one-minute window
            time.sleep(61 - time.time() % 60)

        def call(i: int) -> httpx.Response:
            base = a if i % 2 else b
            return httpx.get(f"{base}/v1/chains", headers={"x-service-api-key": secret})

        began = time.time()
        with ThreadPoolExecutor(max_workers=16) as pool:
            answers = list(pool.map(call, range(REQUESTS)))
        # Invariant of the figures below: the load stayed inside one window.
        assert began // 60 == time.time() // 60, "the load crossed a window: run it again"
    statuses = Counter(r.status_code for r in answers)
    assert statuses == {200: BUDGET, 429: REQUESTS - BUDGET}
    for r in answers:
        assert r.headers["ratelimit-policy"] == f"{BUDGET};w=60"
        assert r.headers["ratelimit-limit"] == str(BUDGET)
    admitted = sorted(
        int(r.headers["ratelimit-remaining"]) for r in answers if r.status_code == 200
    )
    assert admitted == list(range(BUDGET))  # every value once: no two answers saw one count
    for r in answers:
        if r.status_code == 429:
            assert r.headers["ratelimit-remaining"] == "0"
            assert r.headers["ratelimit-reset"] == r.headers["retry-after"]
            assert 1 <= int(r.headers["retry-after"]) <= 60
            assert r.json()["statusCode"] == 429
        else:
            assert "ratelimit-reset" not in r.headers and "retry-after" not in r.headers
    assert {r.url.port for r in answers if r.status_code == 200} == {
        httpx.URL(a).port,
        httpx.URL(b).port,
    }
