"""rollingWindowMetrics over the two devnets' weeks of history: every window of every metric,
of one chain and of the aggregates, equals the brute force over the indexed rows from the
window's first bucket on; read over HTTP and through the official client."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from snowfield.store.buckets import DAY
from snowfield.store.rolling_windows import METRICS, WINDOWS, window_start
from tests.clients.chainkit import Call, drive
from tests.metrics.brute import db_blocks, value
from tests.metrics.conftest import CHAIN_A, CHAIN_B, Indexed
from tests.metrics.traffic import serve_metrics

END = 2**62


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float):
        return isinstance(got, float | int) and got == pytest.approx(want, rel=1e-12)
    return bool(got == want) and type(got) is type(want)


def test_every_window_equals_the_brute_force(indexed: Indexed) -> None:
    blocks = {CHAIN_A: db_blocks(indexed.db, CHAIN_A), CHAIN_B: db_blocks(indexed.db, CHAIN_B)}
    every = blocks[CHAIN_A] + blocks[CHAIN_B]
    # "now" inside the history: the short windows hold part of it, the long ones all of it
    now = indexed.history.monday + 40 * DAY + 7 * 3600
    with serve_metrics(indexed.db, clock=lambda: float(now)) as base, httpx.Client() as client:
        for ref, chain_blocks in ((str(CHAIN_A), blocks[CHAIN_A]), ("total", every),
                                  ("testnet", every)):  # fmt: skip
            for metric in METRICS:
                got = client.get(f"{base}/v2/chains/{ref}/rollingWindowMetrics/{metric}")
                assert got.status_code == 200, got.text
                result = got.json()["result"]
                for name, length in WINDOWS:
                    low = window_start(metric, length, now)
                    want = value(metric, chain_blocks, -1 if low is None else low, END)
                    assert _same(result[name], want), (ref, metric, name, result[name], want)
        seen = client.get(f"{base}/v2/chains/total/rollingWindowMetrics/txCount").json()
        assert len(set(seen["result"].values())) > 2  # the windows differ
        mainnet = client.get(f"{base}/v2/chains/mainnet/rollingWindowMetrics/txCount").json()
        assert set(mainnet["result"].values()) == {0}
        for path, status in (("9999/rollingWindowMetrics/txCount", 404),
                             ("total/rollingWindowMetrics/cumulativeTxCount", 400),
                             ("total/rollingWindowMetrics/nope", 400)):  # fmt: skip
            response = client.get(f"{base}/v2/chains/{path}")
            assert response.status_code == status, response.text
            assert response.json()["statusCode"] == status
        (result,) = drive(
            [Call("metrics.chains.getRollingWindowMetrics",
                  {"chainId": str(CHAIN_A), "metric": "activeAddresses"})],
            data=base, metrics=base,
        )  # fmt: skip
        assert result.unwrap()["allTime"] == value(  # the driver hands over `result`
            "activeAddresses", blocks[CHAIN_A], -1, END
        )
