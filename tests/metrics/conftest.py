"""Two devnets with traffic across weeks and months (sharing their dev addresses), indexed in
small batches into each test database, and the metrics service over it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.writes import upsert_chain
from snowfield.testing import RunningNode, database_urls, index_node, open_database, serve_devnet
from tests.metrics.traffic import build_history, first_monday_after, serve_metrics

CHAIN_A = 43112  # network "local": in the testnet aggregate
CHAIN_B = 43119  # network "testnet"
CHAIN_M = 43114  # configured as mainnet, never indexed: the mainnet aggregate is empty
# Day offsets from the first Monday: more than three weeks and two month starts, gaps between.
DAYS_A = [0, 1, 3, 8, 9, 16, 24, 31, 38, 45, 52, 60, 66, 96]
DAYS_B = [1, 2, 9, 17, 40, 61]


@dataclass
class History:
    a: RunningNode
    b: RunningNode
    monday: int


@dataclass
class Indexed:
    history: History
    db: Database
    base: str  # metrics service URL


@pytest.fixture(scope="package")
def history() -> Iterator[History]:
    with serve_devnet() as a, serve_devnet(chain_id=CHAIN_B) as b:
        monday = first_monday_after(int(time.time()))
        build_history(a, monday, DAYS_A, demo_days={0, 9, 38})
        build_history(b, monday, DAYS_B, demo_days={2, 40})
        yield History(a, b, monday)


def add_chains(db: Database, history: History) -> None:
    for chain_id, network, node in ((CHAIN_A, "local", history.a), (CHAIN_B, "testnet", history.b),
                                    (CHAIN_M, "mainnet", None)):  # fmt: skip
        rpc = node.rpc if node else "http://127.0.0.1:1/ext/bc/C/rpc"
        upsert_chain(db, ChainRow(chain_id, f"chain {chain_id}", network, rpc))


@pytest.fixture(
    scope="package",
    params=database_urls(Path("/nonexistent")),
    ids=lambda url: url.split(":", 1)[0] if "://" in url else "sqlite",
)
def indexed(
    request: pytest.FixtureRequest, history: History, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    url = request.param
    if "://" not in url:
        url = str(tmp_path_factory.mktemp("metrics") / "snowfield.db")
    with open_database(url) as db:
        add_chains(db, history)
        index_node(db, history.a.rpc, batch_blocks=7)
        index_node(db, history.b.rpc, batch_blocks=5)
        with serve_metrics(db) as base:
            yield Indexed(history, db, base)
