"""Every metric x every allowed interval, for one chain and for unions of two, equals a brute
force over the node's own blocks, receipts, logs and traces, and over the raw indexed rows."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest

from tests.metrics.brute import (
    INTERVALS,
    Block,
    after,
    db_blocks,
    expected,
    node_blocks,
    same_facts,
    start_of,
)
from tests.metrics.conftest import CHAIN_A, CHAIN_B, Indexed
from tests.metrics.traffic import fetch_series


def typed(points: list[tuple[int, Any]]) -> list[tuple[int, str, Any]]:
    """Points with their JSON type, so that 1 and 1.0 differ."""
    return [(t, type(v).__name__, v) for t, v in points]


@pytest.fixture(scope="module")
def facts(indexed: Indexed) -> dict[str, list[Block]]:
    a, b = node_blocks(indexed.history.a.rpc), node_blocks(indexed.history.b.rpc)
    assert same_facts(a, db_blocks(indexed.db, CHAIN_A))
    assert same_facts(b, db_blocks(indexed.db, CHAIN_B))
    return {str(CHAIN_A): a, str(CHAIN_B): b, "total": a + b, "testnet": a + b}


def test_the_history_spans_weeks_and_months(facts: dict[str, list[Block]]) -> None:
    blocks = facts["total"]
    assert len({start_of("week", x.ts) for x in blocks}) >= 4
    assert len({start_of("month", x.ts) for x in blocks}) >= 3
    assert any(len(x.creators) and x.creators[0] != x.txs[0][0] for x in blocks)  # a factory
    assert any(a.ts == b.ts for a, b in itertools.pairwise(blocks))  # same second


@pytest.mark.parametrize("chain", [str(CHAIN_A), str(CHAIN_B), "total", "testnet"])
def test_every_metric_and_interval_equals_the_brute_force(
    indexed: Indexed, facts: dict[str, list[Block]], chain: str
) -> None:
    from_rows = {
        str(CHAIN_A): db_blocks(indexed.db, CHAIN_A),
        str(CHAIN_B): db_blocks(indexed.db, CHAIN_B),
    }
    from_rows["total"] = from_rows["testnet"] = from_rows[str(CHAIN_A)] + from_rows[str(CHAIN_B)]
    with httpx.Client(timeout=30) as client:
        for metric, intervals in INTERVALS.items():
            for interval in intervals:
                got = fetch_series(client, indexed.base, chain, metric, timeInterval=interval,
                                   pageSize=2160)  # fmt: skip
                want = expected(metric, interval, facts[chain])
                assert want, (metric, interval)
                assert typed(got) == typed(want), (chain, metric, interval)
                assert typed(expected(metric, interval, from_rows[chain])) == typed(want)


def test_aggregates_are_unions_not_sums(indexed: Indexed) -> None:
    with httpx.Client(timeout=30) as client:
        series = {
            c: dict(fetch_series(client, indexed.base, c, "cumulativeAddresses"))
            for c in (str(CHAIN_A), str(CHAIN_B), "total")
        }
        last = max(series[str(CHAIN_B)])  # a day both chains have reached
        assert series["total"][last] < series[str(CHAIN_A)][last] + series[str(CHAIN_B)][last]
        tx = {c: dict(fetch_series(client, indexed.base, c, "cumulativeTxCount"))
              for c in (str(CHAIN_A), str(CHAIN_B), "total")}  # fmt: skip
        assert tx["total"][last] == tx[str(CHAIN_A)][last] + tx[str(CHAIN_B)][last]
        mainnet = client.get(f"{indexed.base}/v2/chains/mainnet/metrics/txCount").json()
        assert mainnet == {"results": []}


@pytest.mark.parametrize(
    ("metric", "interval", "size"),
    [("txCount", "hour", 7), ("activeAddresses", "week", 2), ("cumulativeAddresses", "day", 5),
     ("activeSenders", "month", 1), ("avgTps", "day", 3)],
)  # fmt: skip
def test_ranges_and_small_pages(
    indexed: Indexed, facts: dict[str, list[Block]], metric: str, interval: str, size: int
) -> None:
    blocks = facts["total"]
    first, last = min(x.ts for x in blocks), max(x.ts for x in blocks)
    start, end = first + (last - first) // 3 + 17, last - (last - first) // 4 - 5
    want = [
        (b, v) for b, v in expected(metric, interval, blocks)
        if b <= end and after(interval, b) > start
    ]  # fmt: skip
    with httpx.Client(timeout=30) as client:
        got = fetch_series(client, indexed.base, "total", metric, timeInterval=interval,
                           startTimestamp=start, endTimestamp=end, pageSize=size)  # fmt: skip
        assert typed(got) == typed(want)
        only_start = fetch_series(client, indexed.base, "total", metric, timeInterval=interval,
                                  startTimestamp=start, pageSize=size)  # fmt: skip
        assert typed(only_start) == typed(
            [(b, v) for b, v in expected(metric, interval, blocks) if after(interval, b) > start]
        )


def test_average_tps_series(indexed: Indexed, facts: dict[str, list[Block]]) -> None:
    want = expected("avgTps", "day", facts[str(CHAIN_A)])
    got: list[tuple[int, Any]] = []
    token = None
    with httpx.Client(timeout=30) as client:
        while True:
            params = {"pageToken": token} if token else {}
            body = client.get(f"{indexed.base}/v1/avg_tps/{CHAIN_A}", params=params).json()
            assert body["status"] == 200 and isinstance(body["lastRun"], int)
            assert body["lastRun"] > 0 and len(body["results"]) <= 100
            got += [(p["timestamp"], p["value"]) for p in body["results"]]
            token = body.get("nextPageToken")
            if token is None:
                break
    assert len(want) > 100  # more than one page
    assert typed(got) == typed(want)
