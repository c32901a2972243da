"""Prometheus text exposition of the node's counters and gauges."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable


class NodeMetrics:
    """Call counters (kept by the dispatchers) and gauges read when scraped."""

    def __init__(self, calls: Counter[str]) -> None:
        self.calls = calls
        self.gauges: dict[str, tuple[str, Callable[[], float]]] = {}

    def gauge(self, name: str, help_text: str, read: Callable[[], float]) -> None:
        self.gauges[name] = (help_text, read)

    def render(self) -> str:
        lines = [
            "# HELP snowfield_rpc_calls_total EVM JSON-RPC calls served, by method.",
            "# TYPE snowfield_rpc_calls_total counter",
        ]
        for method, count in sorted(self.calls.items()):
            lines.append(f'snowfield_rpc_calls_total{{method="{method}"}} {count}')
        for name, (help_text, read) in sorted(self.gauges.items()):
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", f"{name} {read()}"]
        return "\n".join(lines) + "\n"
