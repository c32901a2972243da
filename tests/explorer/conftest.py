"""Builders for the explorer's tests: demo traffic on a real devnet, indexed by the real indexer,
served by the data app (with the explorer at /) and the metrics app on loopback ports; and a
walk through the pages in the system's headless Chromium driven by playwright-core."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.metrics.service import create_metrics_app
from snowfield.api.site import ExplorerConfig
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.writes import upsert_chain
from snowfield.testing import (
    free_port,
    index_node,
    open_database,
    run_demo_rounds,
    run_node_script,
    serve_asgi,
    serve_devnet,
)

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / ".artifacts" / "explorer"
BROWSE = Path(__file__).with_name("browse.mjs")


@dataclass(frozen=True, slots=True)
class Site:
    base: str  # the data API with the explorer at /
    metrics: str
    rpc: str
    db: Database
    report: Any

    def api(self, path: str, **params: Any) -> Any:
        response = httpx.get(self.base + path, params=params, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def metric(self, chain: str, metric: str, **params: Any) -> Any:
        url = f"{self.metrics}/v2/chains/{chain}/metrics/{metric}"
        response = httpx.get(url, params=params, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def rpc_call(self, method: str, *params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
        return httpx.post(self.rpc, json=body, timeout=30).json()["result"]


@contextlib.contextmanager
def explorer_site(
    tmp: Path, *, policy: RatePolicy | None = None, rounds: int = 2
) -> Iterator[Site]:
    """An indexed devnet behind both APIs, the explorer told where the node and metrics are."""
    with serve_devnet() as node:
        report = run_demo_rounds(node.rpc, rounds)
        with open_database(str(tmp / "snowfield.db")) as db:
            upsert_chain(
                db, ChainRow(chain_id=43112, name="C-Chain", network="local", rpc_url=node.rpc)
            )
            index_node(db, node.rpc)
            with serve_asgi(create_metrics_app(db), name="metrics") as metrics:
                config = ExplorerConfig(rpc=node.rpc, metrics_api=metrics)
                app = create_data_app(
                    db, policy=policy or RatePolicy(10**9, 10**9), explorer=config
                )
                with serve_asgi(app, name="explorer") as base:
                    yield Site(base, metrics, node.rpc, db, report)


@contextlib.contextmanager
def another_site(db: Database, config: ExplorerConfig, policy: RatePolicy) -> Iterator[str]:
    """A second data app with the explorer over `db`, told `config`, limited by `policy`."""
    with serve_asgi(create_data_app(db, policy=policy, explorer=config), name="site") as base:
        yield base


def dead_url() -> str:
    """A loopback URL nothing listens on."""
    return f"http://127.0.0.1:{free_port()}"


def browse(base: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Runs the steps in one headless Chromium; each step's findings by name."""
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing: apt-get install chromium (.ci/run does)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as plan:
        json.dump(
            {
                "base": base,
                "chromium": str(CHROMIUM),
                "artifacts": str(ARTIFACTS),
                "steps": steps,
            },
            plan,
        )
    try:
        out = run_node_script(
            BROWSE.read_text(), plan.name, packages=("playwright-core",), timeout=180
        )
    finally:
        Path(plan.name).unlink()
    found: dict[str, Any] = json.loads(out)
    return found


def shown(step: dict[str, Any], key: str) -> list[tuple[str, str | None]]:
    """(text, raw value) of every element the page marked with data-k=key."""
    return [(text, value) for k, text, value, _ in step["ks"] if k == key]


def one(step: dict[str, Any], key: str) -> tuple[str, str | None]:
    found = shown(step, key)
    assert found, f"{key} not shown on {step['hash']}: {step['text'][:500]}"
    return found[0]


def count(step: dict[str, Any], key: str) -> int:
    found = [n for k, _, _, n in step["ks"] if k == key]
    return int(found[0]) if found and found[0] is not None else 0
