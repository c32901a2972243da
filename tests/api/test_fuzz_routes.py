"""No request to the data or metrics API can reach a 5xx: Hypothesis over every route's path
and query parameters (huge, malformed, repeated), each answered in the error shape."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from snowfield.api.app import OPERATIONS
from snowfield.api.metrics.params import QUERY
from snowfield.api.metrics.service import create_metrics_app
from snowfield.cli.compose import metrics_api_error
from snowfield.store.database import Database
from snowfield.testing import serve_asgi
from tests.api.conftest import CHAIN

values = st.one_of(
    st.sampled_from([str(CHAIN), "0", "1", "-1", "9" * 4301, "0x" + "ab" * 20, "0x" + "cd" * 32]),
    st.sampled_from(["asc", "desc", "total", "txCount", "day", "²", "", "null", "1e9"]),
    st.integers(-(2**70), 2**70).map(str),
    st.text(
        st.characters(min_codepoint=0x20, max_codepoint=0x2FF, exclude_categories=["Cc"]),
        max_size=30,
    ),
)
METRIC_ROUTES = ["/v2/chains/{chainId}/metrics/{metric}", "/v1/avg_tps/{chainId}"]
QUERY_NAMES = sorted({p.name for op in OPERATIONS for p in op.params} | {p.name for p in QUERY})
queries = st.lists(st.tuples(st.sampled_from(QUERY_NAMES), values), max_size=5)


def _fill(template: str, draw: Any) -> str:
    """The route with each {parameter} replaced by a drawn value, percent-encoded."""
    return re.sub(r"\{[^}]+\}", lambda _: quote(draw(values), safe="") or "x", template)


def _check(reply: httpx.Response) -> None:
    assert reply.status_code < 500, (reply.request.url, reply.text[:300])
    if reply.status_code >= 400:
        assert reply.headers["content-type"].startswith("application/json")
        assert set(reply.json()) == {"message", "statusCode", "error"}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), query=queries)
def test_data_api_routes(api: httpx.Client, data: Any, query: list[tuple[str, str]]) -> None:
    template = data.draw(st.sampled_from([op.path for op in OPERATIONS]), label="route")
    _check(api.get(_fill(template, data.draw), params=tuple(query)))


@pytest.fixture(scope="module")
def metrics(filled: Database) -> Iterator[httpx.Client]:
    app = create_metrics_app(filled)
    with (
        serve_asgi(app, name="metrics", render=metrics_api_error) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        yield client


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), query=queries)
def test_metrics_routes(metrics: httpx.Client, data: Any, query: list[tuple[str, str]]) -> None:
    template = data.draw(st.sampled_from(METRIC_ROUTES), label="route")
    _check(metrics.get(_fill(template, data.draw), params=tuple(query)))
