"""The metrics service's own Prometheus /metrics."""

from __future__ import annotations

from pathlib import Path

import httpx

from snowfield.api.metrics.service import create_metrics_app
from snowfield.testing import open_database
from tests.api.conftest import serve_app
from tests.helpers import labels, prometheus_samples


def test_metrics_service_counts_its_requests(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "m.db")) as db, serve_app(create_metrics_app(db)) as base:
        assert httpx.get(f"{base}/v2/chains/1/metrics/txCount").status_code == 404
        assert httpx.get(f"{base}/v2/chains/total/metrics/bogus").status_code == 400
        text = httpx.get(f"{base}/metrics").text
    route = "/v2/chains/{chainId}/metrics/{metric}"
    samples = prometheus_samples(text)
    requests = "snowfield_metrics_api_requests_total"
    assert samples[(requests, labels(route=route, method="GET", status="404"))] == 1
    assert samples[(requests, labels(route=route, method="GET", status="400"))] == 1
    assert samples[("snowfield_metrics_api_request_seconds_count", labels(route=route))] == 2
