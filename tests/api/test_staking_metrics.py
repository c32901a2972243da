"""getStakingMetrics over the devnet's P-Chain demo (genesis validators, a new validator, a
delegation, a subnet validator, rewards a day later), indexed by the real primary indexer:
every day's validator and delegator count and weight equals a brute-force count over the
indexed stakers, over HTTP (every page) and through the official client."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.store import staking_rollups
from snowfield.store.buckets import DAY
from snowfield.store.database import Database
from snowfield.testing import serve_devnet
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from tests.clients.chainkit import Call, drive
from tests.metrics.traffic import serve_metrics

P_ID = "11111111111111111111111111111111LpoYY"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with serve_devnet(validators=2) as devnet:
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        opened = Database(str(Path(tmp_path_factory.mktemp("staking")) / "p.db"))
        opened.migrate()
        asyncio.run(_sync(opened, devnet.base))
        yield opened
        opened.close()


async def _sync(db: Database, base: str) -> None:
    source = PlatformSource(base)
    try:
        await PrimaryIndexer(db, source, batch_size=3).sync()
    finally:
        await source.aclose()


def _brute(db: Database, subnet: str, metric: str, day: int) -> int:
    """Stakers of `subnet` staking at the day's last second, from the raw rows."""
    instant = day + DAY - 1
    side = "DELEGATOR" if metric.startswith("delegator") else None
    total = 0
    for kind, start, end, amount, ended_at in db.query(
        "SELECT s.kind, s.start_time, s.end_time, s.amount, t.timestamp FROM p_stakers s"
        " LEFT JOIN p_txs t ON t.pchain = s.pchain AND t.tx_id = s.ended_tx"
        " WHERE s.subnet_id = ?",
        (subnet,),
    ):
        if (kind == "DELEGATOR") != (side == "DELEGATOR"):
            continue
        stop = int(end) if ended_at is None else min(int(end), int(ended_at))
        if int(start) <= instant < stop:
            total += 1 if metric.endswith("Count") else int(amount)
    return total


def _pages(client: httpx.Client, url: str, **params: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    query = dict(params)
    for _ in range(500):
        got = client.get(url, params=query)
        assert got.status_code == 200, got.text
        body = got.json()
        out += body["results"]
        if "nextPageToken" not in body:
            return out
        query["pageToken"] = body["nextPageToken"]
    raise AssertionError("too many pages")


def test_staking_metrics_equal_brute_force(db: Database) -> None:
    subnets = [str(r[0]) for r in db.query("SELECT DISTINCT subnet_id FROM p_stakers")]
    assert P_ID in subnets
    with serve_metrics(db) as base, httpx.Client() as client:
        for subnet in subnets:
            for metric in staking_rollups.METRICS:
                url = f"{base}/v2/networks/testnet/metrics/{metric}"
                points = _pages(client, url, subnetId=subnet, pageSize=2)
                days = [p["timestamp"] for p in points]
                assert days == sorted(days, reverse=True) and len(set(days)) == len(days)
                assert all(b - a == DAY for a, b in zip(days[1:], days[:-1], strict=True))
                for p in points:
                    assert p["value"] == _brute(db, subnet, metric, p["timestamp"]), (
                        subnet,
                        metric,
                        p,
                    )
        counts = _pages(client, f"{base}/v2/networks/fuji/metrics/validatorCount")
        assert counts and max(p["value"] for p in counts) >= 2
        assert any(
            p["value"] for p in _pages(client, f"{base}/v2/networks/fuji/metrics/delegatorCount")
        )
        # a range: only its days
        first = counts[-1]["timestamp"]
        ranged = _pages(client, f"{base}/v2/networks/fuji/metrics/validatorCount",
                        startTimestamp=first + DAY, endTimestamp=first + DAY)  # fmt: skip
        assert [p["timestamp"] for p in ranged] == [first + DAY][: len(ranged)]
        for path, status in (("mainnet/metrics/validatorCount", 404),
                             ("fuji/metrics/nope", 400),
                             ("moon/metrics/validatorCount", 400)):  # fmt: skip
            got = client.get(f"{base}/v2/networks/{path}")
            assert got.status_code == status, got.text
        assert client.get(f"{base}/v2/networks/fuji/metrics/validatorCount",
                          params={"subnetId": "x"}).status_code == 400  # fmt: skip
        (result,) = drive(
            [Call("metrics.networks.getStakingMetrics",
                  {"network": "fuji", "metric": "validatorWeight", "pageSize": 1}, "all")],
            data=base, metrics=base,
        )  # fmt: skip
        pages = result.all_pages()
        assert [x["value"] for p in pages for x in p["results"]] == [
            p["value"] for p in _pages(client, f"{base}/v2/networks/fuji/metrics/validatorWeight")
        ]
        assert len(pages) == len(counts)
    # what the writer kept incrementally is what schema 15's upgrade builds from the rows
    kept = db.query("SELECT * FROM staking_deltas ORDER BY pchain, subnet_id, metric, day")
    with db.transaction() as w:
        staking_rollups.rebuild(w)
    assert (
        kept
        and db.query("SELECT * FROM staking_deltas ORDER BY pchain, subnet_id, metric, day") == kept
    )
