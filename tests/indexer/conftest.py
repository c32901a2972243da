"""A devnet with demo traffic, indexed into each test database (SQLite; PostgreSQL too when
SNOWFIELD_TEST_PG is set)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from web3 import Web3

from snowfield.store.database import Database
from snowfield.testing import (
    RunningNode,
    database_urls,
    index_node,
    open_database,
    run_demo_rounds,
    serve_devnet,
)


@dataclass
class Indexed:
    node: RunningNode
    w3: Web3
    db: Database
    report: Any
    head: int


@pytest.fixture(scope="module")
def demo_devnet() -> Iterator[tuple[RunningNode, Any]]:
    with serve_devnet() as running:
        yield running, run_demo_rounds(running.rpc, 3)


@pytest.fixture(
    scope="module",
    params=database_urls(Path("/nonexistent")),
    ids=lambda url: url.split(":", 1)[0] if "://" in url else "sqlite",
)
def indexed(
    request: pytest.FixtureRequest,
    demo_devnet: tuple[RunningNode, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Indexed]:
    node, report = demo_devnet
    url = request.param
    if "://" not in url:
        url = str(tmp_path_factory.mktemp("db") / "snowfield.db")
    w3 = Web3(Web3.HTTPProvider(node.rpc, request_kwargs={"timeout": 30}))
    with open_database(url) as db:
        index_node(db, node.rpc)
        yield Indexed(node, w3, db, report, w3.eth.block_number)
