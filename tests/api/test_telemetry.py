"""GET /metrics: Prometheus counters and latency histograms of the data API, outside the limit."""

from __future__ import annotations

from snowfield.api.gate import RatePolicy
from snowfield.store.database import Database
from tests.api.conftest import api_client
from tests.helpers import labels, prometheus_samples

ROUTE = "/v1/chains/{chainId}/addresses/{address}/transactions"


def test_requests_are_counted_by_route_and_status(db: Database) -> None:
    with api_client(db, policy=RatePolicy(anonymous=60, keyed=60)) as client:
        address = "0x" + "11" * 20
        assert client.get("/v1/chains").status_code == 200
        assert client.get(f"/v1/chains/999/addresses/{address}/transactions").status_code == 404
        assert client.get("/v1/chains/999/addresses/0xzz/transactions").status_code in (400, 404)
        statuses = [client.get("/nope").status_code for _ in range(30)]
        assert 429 in statuses  # the limit was reached ...
        scrape = client.get("/metrics")  # ... and the scrape still answers
    assert scrape.status_code == 200
    assert scrape.headers["content-type"].startswith("text/plain")
    text = scrape.text
    samples = prometheus_samples(text)
    requests = "snowfield_data_api_requests_total"
    assert samples[(requests, labels(route="/v1/chains", method="GET", status="200"))] == 1
    assert samples[(requests, labels(route=ROUTE, method="GET", status="404"))] == 1
    assert samples[(requests, labels(route="(unmatched)", method="GET", status="429"))] >= 1
    assert samples[("snowfield_data_api_request_seconds_count", labels(route=ROUTE))] == 2
    inf = labels(route=ROUTE, le="+Inf")
    assert samples[("snowfield_data_api_request_seconds_bucket", inf)] == 2
    assert "# TYPE snowfield_data_api_request_seconds histogram" in text
