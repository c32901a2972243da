"""Prometheus metrics of an API app: requests by route and status, and a latency histogram,
served at GET /metrics in front of the rate limiter (operators scrape it freely)."""

from __future__ import annotations

import bisect
import itertools
import time
from collections import defaultdict
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.types import Scope, Send

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Recorder(Collector):
    """Request counts by route, method and status, and a latency histogram by route; kept as
    plain counts on the request path and read by prometheus-client when scraped."""

    def __init__(self, service: str) -> None:
        self.prefix = f"snowfield_{service}_api"
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)
        self.requests: dict[tuple[str, str, int], int] = defaultdict(int)
        self.latency: dict[str, list[int]] = defaultdict(lambda: [0] * (len(BUCKETS) + 1))
        self.latency_sum: dict[str, float] = defaultdict(float)

    def record(self, route: str, method: str, status: int, started: float) -> None:
        elapsed = time.perf_counter() - started
        self.requests[(route, method, status)] += 1
        # One count in the first bucket that holds it (the last: +Inf); collect() sums them up
        # into Prometheus's cumulative buckets, so a request costs one increment, not ten.
        self.latency[route][bisect.bisect_left(BUCKETS, elapsed)] += 1
        self.latency_sum[route] += elapsed

    def collect(self) -> Iterator[Metric]:
        requests = CounterMetricFamily(
            f"{self.prefix}_requests",
            "Requests answered, by route, method and status.",
            labels=["route", "method", "status"],
        )
        for (route, method, status), n in sorted(self.requests.items()):
            requests.add_metric([route, method, str(status)], n)
        yield requests
        latency = HistogramMetricFamily(
            f"{self.prefix}_request_seconds",
            "Time to answer a request, by route.",
            labels=["route"],
        )
        for route, counts in sorted(self.latency.items()):
            bounds = (*map(str, BUCKETS), "+Inf")
            buckets = list(zip(bounds, itertools.accumulate(counts), strict=True))
            latency.add_metric([route], buckets, sum_value=self.latency_sum[route])
        yield latency

    def render(self) -> str:
        return generate_latest(self.registry).decode()

    @staticmethod
    def is_scrape(scope: Scope) -> bool:
        return scope["path"] == "/metrics" and scope["method"] in ("GET", "HEAD")

    async def serve(self, send: Send) -> None:
        body = self.render().encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/plain; version=0.0.4; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
