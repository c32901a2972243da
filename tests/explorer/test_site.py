"""The explorer's files in front of the data service: served from memory without touching the
rate limit, config.json from the settings, gzip and ETags; API paths still pass the gate; the
metrics API and the node answer browsers on other origins (CORS)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.metrics.service import create_metrics_app
from snowfield.api.ratelimit import MemoryLimiter
from snowfield.api.site import ExplorerConfig
from snowfield.store.database import Database
from snowfield.testing import open_database, serve_asgi, serve_devnet
from tests.api.conftest import add_chains, assert_error, frozen_clock

ASSETS = ("/", "/explorer/app.js", "/explorer/style.css", "/explorer/pages/tx.js")


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    """SQLite is enough: the explorer's files do not touch the store."""
    with open_database(str(tmp_path / "snowfield.db")) as opened:
        yield opened


@pytest.fixture
def client(db: Database) -> Iterator[httpx.Client]:
    add_chains(db)
    config = ExplorerConfig(rpc="http://127.0.0.1:9/ext/bc/C/rpc", metrics_port=8181, api_key="k1")
    app = create_data_app(
        db,
        policy=RatePolicy(anonymous=50, keyed=50),
        limiter=MemoryLimiter(clock=frozen_clock),
        explorer=config,
    )
    with serve_asgi(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        yield http


def test_page_and_assets_do_not_count_against_the_rate_limit(client: httpx.Client) -> None:
    before = int(client.get("/v1/chains").headers["ratelimit-remaining"])
    for _ in range(30):
        for path in ASSETS:
            response = client.get(path)
            assert response.status_code == 200, path
            assert "ratelimit-remaining" not in response.headers
    assert int(client.get("/v1/chains").headers["ratelimit-remaining"]) == before - 1


def test_index_and_module_types(client: httpx.Client) -> None:
    index = client.get("/")
    assert index.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/explorer/app.js">' in index.text
    assert client.get("/explorer/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/explorer/style.css").headers["content-type"].startswith("text/css")
    csp = index.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp


def test_config_names_the_node_metrics_api_and_key(client: httpx.Client) -> None:
    config = client.get("/explorer/config.json").json()
    assert config == {
        "dataApi": "",
        "metricsApi": "http://127.0.0.1:8181",
        "rpc": "http://127.0.0.1:9/ext/bc/C/rpc",
        "apiKey": "k1",
    }
    by_name = client.get("/explorer/config.json", headers={"host": "explorer.test:8080"}).json()
    assert by_name["metricsApi"] == "http://explorer.test:8181"


def test_gzip_etag_and_head(client: httpx.Client) -> None:
    raw = client.get("/explorer/app.js", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in raw.headers
    zipped = client.get("/explorer/app.js", headers={"accept-encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.content == raw.content
    assert int(zipped.headers["content-length"]) < len(raw.content)
    again = client.get("/explorer/app.js", headers={"if-none-match": raw.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    head = client.head("/")
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) > 0


def test_api_paths_still_pass_the_gate(client: httpx.Client) -> None:
    missing = client.get("/explorer/nope.js")
    assert_error(missing, 404)
    assert "ratelimit-remaining" in missing.headers
    posted = client.post("/")
    assert posted.status_code in (404, 405) and "ratelimit-remaining" in posted.headers
    assert client.get("/v1/chains").json()["chains"]


def test_without_explorer_root_is_an_unknown_route(db: Database) -> None:
    app = create_data_app(db, policy=RatePolicy(10, 10), limiter=MemoryLimiter())
    with serve_asgi(app) as base:
        assert_error(httpx.get(base + "/"), 404)


def test_metrics_api_and_node_answer_other_origins(db: Database) -> None:
    origin = {"origin": "http://127.0.0.1:8080"}
    with serve_asgi(create_metrics_app(db)) as base:
        response = httpx.get(base + "/v2/chains/total/metrics/txCount", headers=origin)
        assert response.headers["access-control-allow-origin"] == "*"
    with serve_devnet() as node:
        preflight = httpx.options(
            node.rpc,
            headers={
                **origin,
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "*"
        body = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}
        answer = httpx.post(node.rpc, json=body, headers=origin)
        assert answer.headers["access-control-allow-origin"] == "*"
        assert orjson.loads(answer.content)["result"] == hex(43112)
        # without an Origin: no CORS headers, but caches are told the answer varies by it
        for url in (node.rpc, f"{node.base}/ext/bc/P", f"{node.base}/ext/health"):
            plain = httpx.post(url, json=body) if "health" not in url else httpx.get(url)
            assert "access-control-allow-origin" not in plain.headers
            assert plain.headers["vary"] == "Origin", url
