"""The node's Prometheus metrics, exposed through prometheus-client: call counters kept by
the dispatchers and gauges read when scraped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector


class NodeMetrics(Collector):
    """Reads the counters when scraped, so the JSON-RPC hot path only bumps a Counter."""

    def __init__(self, calls: Counter[str]) -> None:
        self.calls = calls
        self.gauges: dict[str, tuple[str, Callable[[], float]]] = {}
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)

    def gauge(self, name: str, help_text: str, read: Callable[[], float]) -> None:
        self.gauges[name] = (help_text, read)

    def collect(self) -> Iterator[Metric]:
        calls = CounterMetricFamily(
            "snowfield_rpc_calls", "EVM JSON-RPC calls served, by method.", labels=["method"]
        )
        for method, count in sorted(self.calls.items()):
            calls.add_metric([method], count)
        yield calls
        for name, (help_text, read) in sorted(self.gauges.items()):
            yield GaugeMetricFamily(name, help_text, value=read())

    def render(self) -> str:
        return generate_latest(self.registry).decode()
