"""The metrics service's ICM counts (/v2/icm/summary, /v2/icm/timeseries), its chains and its
health checks, over messages a real devnet's messenger sent between the C-Chain and an L1 (a
forgery among them), indexed by the real indexer: each count equals a brute-force count over
the stored events, through HTTP and the official client; an unwind leaves the counts a
rebuild from the remaining events gives."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from snowfield.formats.ids import ID
from snowfield.store import icm_counts
from snowfield.store.buckets import INTERVALS, bucket_start
from snowfield.store.database import Database
from snowfield.store.icm_rollups import WINDOWS
from snowfield.store.writes import unwind
from snowfield.testing import RunningNode, database_urls, open_database
from tests.api.test_icm_listing import _setup
from tests.api.test_icm_messages import (  # noqa: F401 (network: the devnet fixture)
    Playground,
    _record,
    network,
)
from tests.clients.chainkit import Call, drive
from tests.metrics.traffic import serve_metrics

Pair = tuple[str, str]


def _brute(db: Database) -> Counter[tuple[str, int, Pair]]:
    """Messages per (interval, bucket, (source, destination)) from the raw events: a send on
    an indexed chain, or a receive whose source chain is not indexed."""
    indexed = {int(c): str(b) for c, b in db.query("SELECT chain_id, blockchain_id FROM chains")}
    out: Counter[tuple[str, int, Pair]] = Counter()
    for chain_id, ts, kind, peer, dest in db.query(
        "SELECT chain_id, block_timestamp, kind, peer_chain, destination_chain FROM icm_events"
    ):
        if kind == "send":
            pair = (indexed[int(chain_id)], str(dest))
        elif kind == "receive" and peer not in indexed.values():
            pair = (str(peer), str(dest))
        else:
            continue
        for span in INTERVALS:
            out[(span, bucket_start(span, int(ts)), pair)] += 1
    return out


def _windows(brute: Counter[tuple[str, int, Pair]], now: int, keep: Any) -> dict[str, int]:
    out = {}
    for name, span, length in WINDOWS:
        low = None if length is None else bucket_start(span, now - length)
        out[name] = sum(
            n for (s, b, pair), n in brute.items()
            if s == span and (low is None or b >= low) and keep(pair)
        )  # fmt: skip
    return out


def _series(client: httpx.Client, base: str, **params: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    query = dict(params)
    for _ in range(100):
        body = client.get(f"{base}/v2/icm/timeseries", params=query).json()
        out += body["results"]
        if "nextPageToken" not in body:
            return out
        query["pageToken"] = body["nextPageToken"]
    raise AssertionError("too many pages")


def test_icm_counts_equal_brute_force(
    network: tuple[RunningNode, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    node, l1 = network
    play = Playground(node, l1, tmp_path)
    setup = _setup(play, l1)
    for url in database_urls(tmp_path):  # SQLite; PostgreSQL too when configured
        _one_store(url, play, l1, setup)


def _one_store(url: str, play: Playground, l1: str, setup: dict[str, Any]) -> None:
    with open_database(url) as db:
        _record(db, play)
        play.index(db)
        brute = _brute(db)
        assert sum(n for (s, _, _), n in brute.items() if s == "day") == 3  # not the forgery
        now = max(b for (s, b, _) in brute if s == "hour") + 1800
        with serve_metrics(db, clock=lambda: float(now)) as base, httpx.Client() as client:
            _check(client, base, brute, now, play, l1)
            _check_client(base, play, l1)
            assert client.get(f"{base}/v2/health-check").json()["status"] == "ok"
            assert client.get(f"{base}/v2/live-check").json()["status"] == "ok"
        # an unwind of the L1 from its first messenger event: the counts a rebuild gives
        before = _rows(db)
        low = db.query(
            "SELECT MIN(block_number) FROM icm_events WHERE chain_id = ?", (play.evm[l1],)
        )[0][0]
        unwind(db, play.evm[l1], int(low))
        after = _rows(db)
        assert after and after != before
        assert not [r for r in after if r[0] == play.evm[l1]]  # its events were all after it
        with db.transaction() as w:
            icm_counts.rebuild(w)
        assert _rows(db) == after
        assert setup["two"]


def _rows(db: Database) -> list[tuple[Any, ...]]:
    return db.query("SELECT * FROM icm_rollups ORDER BY span, bucket, chain_id, src, dest, kind")


def _check(
    client: httpx.Client,
    base: str,
    brute: Counter[tuple[str, int, Pair]],
    now: int,
    play: Playground,
    l1: str,
) -> None:
    c_id = play.c_id
    cases: list[tuple[dict[str, str], Any]] = [
        ({}, lambda p: True),
        ({"srcBlockchainId": c_id}, lambda p: p[0] == c_id),
        ({"destBlockchainId": c_id}, lambda p: p[1] == c_id),
        ({"srcBlockchainId": l1, "destBlockchainId": l1}, lambda p: False),
    ]
    for params, keep in cases:
        got = client.get(f"{base}/v2/icm/summary", params=params).json()["result"]
        assert {k: got[k] for k, _, _ in WINDOWS} == _windows(brute, now, keep)
        assert got["srcBlockchainId"] == params.get("srcBlockchainId", "")
        for span in ("hour", "day", "week", "month"):
            points = _series(client, base, timeInterval=span, pageSize=1, **params)
            want: Counter[int] = Counter()
            for (s, b, pair), n in brute.items():
                if s == span and keep(pair):
                    want[b] += n
            assert {p["timestamp"]: p["value"] for p in points if p["value"]} == dict(want)
    assert (
        client.get(f"{base}/v2/icm/summary", params={"network": "mainnet"}).json()["result"][
            "allTime"
        ]
        == 0
    )
    grouped = _series(client, base, groupBy="srcBlockchainId,destBlockchainId")
    pairs: Counter[Pair] = Counter()
    for p in grouped:
        pairs[(p["srcBlockchainId"], p["destBlockchainId"])] += p["value"]
    want_pairs: Counter[Pair] = Counter()
    for (s, _, pair), n in brute.items():
        if s == "day":
            want_pairs[pair] += n
    assert pairs == want_pairs
    for name, bad in (("srcBlockchainId", "x"), ("groupBy", "chain"), ("timeInterval", "year"),
                      ("pageSize", "0"), ("pageSize", "2161"), ("network", "x"),
                      ("startTimestamp", "-1"), ("pageToken", "nope")):  # fmt: skip
        response = client.get(f"{base}/v2/icm/timeseries", params={name: bad})
        assert response.status_code == 400, (name, response.text)
        assert any(name in m for m in response.json()["message"])
    assert str(ID.from_string(l1)) == l1


def _check_client(base: str, play: Playground, l1: str) -> None:
    results = drive(
        [
            Call("metrics.healthCheck", {}),
            Call("metrics.liveCheck", {}),
            Call("metrics.chains.list", {}, "all"),
            Call("metrics.chains.get", {"chainId": str(play.evm[l1])}),
            Call("metrics.chains.getICMSummary", {"srcBlockchainId": play.c_id}),
            # the client gives no page iterator for this one: one page
            Call("metrics.chains.getICMTimeseries", {"timeInterval": "hour"}),
        ],
        data=base,
        metrics=base,
    )  # fmt: skip
    assert results[0].unwrap()["status"] == "ok" and results[1].unwrap()["status"] == "ok"
    chains = [c for p in results[2].all_pages() for c in p["chains"]]
    assert {c["evmChainId"] for c in chains} == set(play.evm.values())
    assert results[3].unwrap()["blockchainId"] == l1
    assert results[4].unwrap()["srcBlockchainId"] == play.c_id
    points = results[5].unwrap()["results"]
    assert sum(x["value"] for x in points) == 3
