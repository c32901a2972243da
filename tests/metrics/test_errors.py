"""Every refusal of the metrics service in its error shape ({message: [..], statusCode, error}):
intervals, metrics, pageSize, timestamps, page tokens, unknown chains and routes, crashes and rate
limits; the API-key header is ignored."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.store.database import Database
from tests.metrics.conftest import CHAIN_A, Indexed
from tests.metrics.traffic import serve_metrics


class Clock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def base(indexed: Indexed, clock: Clock) -> Iterator[str]:
    with serve_metrics(indexed.db, clock=clock) as url:
        yield url


def refusal(reply: httpx.Response, status: int) -> list[str]:
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    body = reply.json()
    assert set(body) == {"message", "statusCode", "error"}
    assert body["statusCode"] == status and isinstance(body["error"], str)
    assert isinstance(body["message"], list) and body["message"]
    assert all(isinstance(m, str) for m in body["message"])
    return list(body["message"])


def get(url: str, **params: Any) -> httpx.Response:
    return httpx.get(url, params=params, timeout=30)


def metric_url(base: str, metric: str = "txCount", chain: str = str(CHAIN_A)) -> str:
    return f"{base}/v2/chains/{chain}/metrics/{metric}"


def test_intervals(base: str) -> None:
    assert refusal(get(metric_url(base), timeInterval="year"), 400) == [
        "timeInterval must be one of the following values: hour, day, week, month"
    ]
    for metric in ("cumulativeTxCount", "maxTps", "contracts", "feesPaid", "deployers"):
        for interval in ("hour", "week", "month"):
            (message,) = refusal(get(metric_url(base, metric), timeInterval=interval), 400)
            assert metric in message and interval in message and "day" in message
    for interval in ("hour", "day", "week", "month"):
        assert get(metric_url(base, "activeSenders"), timeInterval=interval).status_code == 200


def test_default_interval_is_day(base: str) -> None:
    default = get(metric_url(base, "txCount")).json()
    assert default["results"] == get(metric_url(base), timeInterval="day").json()["results"]
    assert all(p["timestamp"] % 86400 == 0 for p in default["results"])


def test_unknown_metric(base: str) -> None:
    (message,) = refusal(get(metric_url(base, "txcount")), 400)
    assert message.startswith("metric must be one of the following values: activeAddresses,")
    assert "feesPaid" in message


@pytest.mark.parametrize("size", ["0", "2161", "-1", "1.5", "ten", ""])
def test_page_size_bounds(base: str, size: str) -> None:
    (message,) = refusal(get(metric_url(base), pageSize=size), 400)
    assert message.startswith("pageSize must")


def test_page_size_limits_are_inclusive(base: str) -> None:
    assert len(get(metric_url(base), pageSize=1).json()["results"]) == 1
    assert get(metric_url(base), pageSize=2160, timeInterval="hour").status_code == 200


@pytest.mark.parametrize(
    ("params", "start"),
    [
        ({"startTimestamp": "-1"}, "startTimestamp must not be less than 0"),
        ({"endTimestamp": "x"}, "endTimestamp must be an integer number"),
        ({"startTimestamp": "10", "endTimestamp": "9"}, "startTimestamp must be less than"),
        ({"startTimestamp": str(2**64)}, "startTimestamp must not be greater than"),
    ],
)
def test_timestamps(base: str, params: dict[str, str], start: str) -> None:
    (message,) = refusal(get(metric_url(base), **params), 400)
    assert message.startswith(start)


def test_every_problem_is_reported(base: str) -> None:
    messages = refusal(get(metric_url(base), timeInterval="x", pageSize="0", pageToken="t"), 400)
    assert len(messages) == 3


def test_chains_and_routes(base: str) -> None:
    for chain in ("999", "foo", "0x1"):
        assert refusal(get(metric_url(base, chain=chain)), 404)
        assert refusal(get(f"{base}/v1/avg_tps/{chain}"), 404)
    assert refusal(get(f"{base}/v2/chains/{CHAIN_A}/nothing"), 404)
    assert refusal(httpx.post(metric_url(base), timeout=30), 404)


def test_api_key_header_is_ignored(base: str) -> None:
    reply = httpx.get(metric_url(base), headers={"x-service-api-key": "whatever"}, timeout=30)
    assert reply.status_code == 200
    assert reply.json()["results"] == get(metric_url(base)).json()["results"]


def test_page_tokens(base: str, clock: Clock) -> None:
    url = metric_url(base, "txCount")
    first = get(url, pageSize=3, timeInterval="hour").json()
    token = first["nextPageToken"]
    assert str(uuid.UUID(token)) == token
    second = get(url, pageSize=3, timeInterval="hour", pageToken=token).json()
    assert second["results"][0]["timestamp"] < first["results"][-1]["timestamp"]
    # A token works with another page size: it only remembers where to continue.
    assert (
        get(url, pageSize=1, timeInterval="hour", pageToken=token).json()["results"]
        == (second["results"][:1])
    )
    for other in ({"timeInterval": "day"}, {"timeInterval": "hour", "startTimestamp": 1}):
        assert refusal(get(url, pageSize=3, pageToken=token, **other), 400)
    assert refusal(get(metric_url(base, "gasUsed"), pageSize=3, timeInterval="hour",
                       pageToken=token), 400)  # fmt: skip
    assert refusal(get(url, pageToken="not-a-uuid"), 400) == ["pageToken must be a UUID"]
    unknown = get(url, pageSize=3, timeInterval="hour", pageToken=str(uuid.uuid4())).json()
    assert unknown["results"] == first["results"]
    clock.now += 24 * 3600 - 1
    later = get(url, pageSize=3, timeInterval="hour", pageToken=token).json()
    assert later["results"] == second["results"]
    clock.now += 1  # 24 hours after it was made: the listing restarts from the first page
    expired = get(url, pageSize=3, timeInterval="hour", pageToken=token).json()
    assert expired["results"] == first["results"] and "nextPageToken" in expired


def test_avg_tps_tokens(base: str, clock: Clock) -> None:
    url = f"{base}/v1/avg_tps/total"
    first = get(url).json()
    token = first["nextPageToken"]
    assert (
        get(url, pageToken=token).json()["results"][0]["timestamp"]
        < (first["results"][-1]["timestamp"])
    )
    assert refusal(get(f"{base}/v1/avg_tps/{CHAIN_A}", pageToken=token), 400)
    assert refusal(get(url, pageToken="x"), 400)
    clock.now += 2 * 24 * 3600
    assert get(url, pageToken=token).json()["results"] == first["results"]


def test_a_crash_answers_500(tmp_path: Path) -> None:
    broken = Database(str(tmp_path / "empty.db"))  # never migrated: every query fails
    try:
        with serve_metrics(broken) as url:
            assert refusal(get(metric_url(url)), 500) == ["internal server error"]
    finally:
        broken.close()


def test_rate_limit(indexed: Indexed) -> None:
    with serve_metrics(indexed.db, rate_per_minute=2) as url:
        assert get(metric_url(url)).headers["ratelimit-limit"] == "2"
        assert get(metric_url(url)).status_code == 200
        refused = get(metric_url(url))
        assert refusal(refused, 429) == ["rate limit exceeded"]
        assert int(refused.headers["retry-after"]) >= 1


def test_openapi(base: str) -> None:
    document = get(f"{base}/openapi.json").json()
    assert set(document["paths"]) == {"/v2/chains/{chainId}/metrics/{metric}",
                                      "/v1/avg_tps/{chainId}", "/v2/chains",
                                      "/v2/chains/{chainId}", "/v2/health-check",
                                      "/v2/live-check", "/v2/icm/summary",
                                      "/v2/icm/timeseries",
                                      "/v2/chains/{chainId}/rollingWindowMetrics/{metric}",
                                      "/v2/networks/{network}/metrics/{metric}",
                                      "/v2/subnets/{subnetId}/validators:getAddresses",
                                      "/v2/chains/43114/btcb/bridged:getAddresses",
                                      "/v2/validators/metrics/{metric}",
                                      "/v2/validation/{l1ValidationId}/metrics/{metric}",
                                      "/v2/validator/{nodeId}/metrics/{metric}",
                                      "/v2/subnet/{subnetId}/metrics/{metric}",
                                      }  # fmt: skip
    params = document["paths"]["/v2/chains/{chainId}/metrics/{metric}"]["get"]["parameters"]
    size = next(p for p in params if p["name"] == "pageSize")["schema"]
    assert (size["minimum"], size["maximum"], size["default"]) == (1, 2160, 100)
