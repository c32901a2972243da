"""Shared fixtures: a real devnet on 127.0.0.1 and web3.py clients on it; a migrated empty
database in each dialect the run has. Under pytest-xdist (`make test`: two workers, each test
module whole on one, `--dist loadfile`), the controller installs the npm programs first."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from web3 import Web3

from snowfield.store.database import Database
from snowfield.testing import (
    NPM_CLIENTS,
    PG_ENV,
    RunningNode,
    anvil_binary,
    database_urls,
    npm_package,
    open_database,
    serve_devnet,
)


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


def pytest_sessionstart(session: pytest.Session) -> None:
    """xdist's controller installs the npm programs before its workers start: a worker's npm
    install could otherwise rearrange .bench/node_modules under a script another worker runs
    (a no-op once they are there)."""
    workers = getattr(session.config.option, "numprocesses", None)
    if workers and not hasattr(session.config, "workerinput"):
        for name, spec in NPM_CLIENTS.items():
            npm_package(name, spec)
        anvil_binary()
