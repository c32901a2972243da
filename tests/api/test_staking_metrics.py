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

from snowfield.store import staking_rollups
from snowfield.store.buckets import DAY
from snowfield.store.database import Database
from snowfield.testing import open_database, serve_devnet
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary
from tests.metrics.traffic import serve_metrics

P_ID = "11111111111111111111111111111111LpoYY"


@pytest.fixture(scope="module", params=_db_kinds())
def db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """The demo's P-Chain indexed into SQLite (and PostgreSQL when configured)."""
    with serve_devnet(validators=2) as devnet:
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        url = _url(request.param, Path(tmp_path_factory.mktemp("staking")))
        with open_database(url) as opened:
            asyncio.run(sync_primary(opened, devnet.base))
            yield opened


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


def _validations(db: Database, start: int | None, end: int | None) -> list[dict[str, Any]]:
    """Brute force: every primary-network validation overlapping [start, end], by start."""
    rows = sorted(
        (int(s), str(t), str(a))
        for s, e, t, a, kind in db.query(
            "SELECT start_time, end_time, tx_id, reward_addresses, kind FROM p_stakers"
            " WHERE subnet_id = ?",
            (P_ID,),
        )
        if kind != "DELEGATOR"
        and (start is None or int(e) > start)
        and (end is None or int(s) <= end)
    )
    return [{"addresses": a.split(","), "sortKey": str(s)} for s, _, a in rows]


def test_validator_addresses_and_btcb_bridgers(db: Database) -> None:
    path = f"/v2/subnets/{P_ID}/validators:getAddresses"
    with serve_metrics(db) as base, httpx.Client(base_url=base) as client:

        def pages(**params: Any) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            query = dict(params)
            for _ in range(100):
                body = client.get(path, params=query).json()
                assert "addresses" in body, (query, body)
                out += body["addresses"]
                if "nextPageToken" not in body:
                    return out
                query["pageToken"] = body["nextPageToken"]
            raise AssertionError("too many pages")

        every = _validations(db, None, None)
        assert len(every) >= 3
        assert pages() == every
        assert pages(pageSize=1) == every  # validations sharing a start stay on one page
        first = int(every[0]["sortKey"])
        assert pages(startTimestamp=first, endTimestamp=first) == _validations(db, first, first)
        assert client.get(path, params={"network": "mainnet"}).status_code == 404  # none here
        for params in ({"pageSize": 0}, {"pageSize": 5001}, {"network": "x"}):
            assert client.get(path, params=params).status_code == 400
        assert client.get("/v2/subnets/nope/validators:getAddresses").status_code == 400
        btcb = "/v2/chains/43114/btcb/bridged:getAddresses"
        assert client.get(btcb, params={"threshold": "1"}).json() == {"addresses": []}
        assert client.get(btcb).status_code == 400  # threshold is required
        assert client.get(btcb, params={"threshold": "-1"}).status_code == 400
        results = drive(
            [Call("metrics.subnets.getValidators", {"subnetId": P_ID, "pageSize": 1}, "all"),
             Call("metrics.chains.listBTCbBridgersAboveThreshold", {"threshold": "1"}, "all")],
            data=base, metrics=base,
        )  # fmt: skip
        assert [a for p in results[0].all_pages() for a in p["addresses"]] == every
        assert [a for p in results[1].all_pages() for a in p["addresses"]] == []


def test_btcb_bridgers_are_net_mints(tmp_path: Path) -> None:
    """Mints and burns of BTC.b on an indexed chain 43114 (rows as the indexer writes them)."""
    token, zero = "0x152b9d0fdc40c096757f570a51e494bd4b943e50", "0x" + "00" * 20
    a, b, c = ("0x" + x * 40 for x in "abc")
    moves = [(zero, a, 500), (zero, b, 300), (a, zero, 100), (zero, c, 50), (b, c, 10),
             (zero, a, 1)]  # fmt: skip
    with open_database(str(tmp_path / "b.db")) as opened:
        with opened.transaction() as w:
            for i, (src, dst, value) in enumerate(moves):
                w.execute(
                    "INSERT INTO transfers (chain_id, block_number, tx_index, log_index,"
                    " batch_index, tx_hash, block_timestamp, token, erc_type, from_addr, to_addr,"
                    " value) VALUES (43114, ?, 0, 0, 0, ?, 0, ?, 'ERC-20', ?, ?, ?)",
                    (i, f"0x{i:064x}", token, src, dst, str(value)),
                )
        with serve_metrics(opened) as base, httpx.Client(base_url=base) as client:
            path = "/v2/chains/43114/btcb/bridged:getAddresses"
            got = client.get(path, params={"threshold": "60"}).json()
            # net bridged: a 500 - 100 + 1, b 300 (the transfer to c is no bridging), c 50
            assert got == {"addresses": [{"address": a, "sortKey": "401"},
                                         {"address": b, "sortKey": "300"}]}  # fmt: skip
            first = client.get(path, params={"threshold": "0", "pageSize": 2}).json()
            rest = client.get(path, params={"threshold": "0", "pageToken": first["nextPageToken"]})
            assert [x["address"] for x in first["addresses"] + rest.json()["addresses"]] == [
                a,
                b,
                c,
            ]
