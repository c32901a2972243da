"""Shared fixtures: a real devnet on 127.0.0.1 and web3.py clients on it; a migrated empty
database in each dialect the run has."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from web3 import Web3

from snowfield.store.database import Database
from snowfield.testing import PG_ENV, RunningNode, database_urls, open_database, serve_devnet


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet() as running:
        yield running


@pytest.fixture(scope="module")
def w3(devnet: RunningNode) -> Web3:
    return Web3(Web3.HTTPProvider(devnet.rpc, request_kwargs={"timeout": 30}))


def _db_kinds() -> list[str]:
    return ["sqlite", "postgresql"] if os.environ.get(PG_ENV) else ["sqlite"]


def _url(kind: str, tmp: Path) -> str:
    urls = database_urls(tmp)
    return urls[0] if kind == "sqlite" else urls[1]


@pytest.fixture(params=_db_kinds())
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A migrated empty database: SQLite always, PostgreSQL too when SNOWFIELD_TEST_PG is set."""
    with open_database(_url(request.param, tmp_path)) as opened:
        yield opened
