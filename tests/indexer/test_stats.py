"""The indexer's Prometheus counters, as `--metrics-port` serves them."""

from __future__ import annotations

from snowfield.indexer.indexer import Stats
from tests.helpers import labels, prometheus_samples


def test_stats_scrape_as_prometheus_text() -> None:
    text = Stats(height=7, head=9, blocks=8, transactions=3, batches=2, unwinds=1).prometheus()
    samples = prometheus_samples(text)
    assert samples[("snowfield_indexer_indexed_height", labels())] == 7
    assert samples[("snowfield_indexer_node_head", labels())] == 9
    assert samples[("snowfield_indexer_blocks_total", labels())] == 8
    assert samples[("snowfield_indexer_unwinds_total", labels())] == 1
    assert "# TYPE snowfield_indexer_transactions_total counter" in text
