"""Shared fixtures: a real devnet on 127.0.0.1 and web3.py clients on it; a migrated empty
database in each dialect the run has. Under pytest-xdist (`make test` runs two workers), each
test module goes to one worker whole, and each package with package-scoped fixtures too, so
that what a module or package builds once is still built once."""

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


# Packages whose conftest builds package-scoped fixtures (a history of devnets, a demo indexed
# once for several modules): under xdist, all their modules run on one worker.
PACKAGE_GROUPS = ("tests/metrics/", "tests/indexer/")


def _xdist_group(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    return next((p for p in PACKAGE_GROUPS if module.startswith(p)), module)


def pytest_sessionstart(session: pytest.Session) -> None:
    """xdist's controller installs the npm programs before its workers start: a worker's npm
    install could otherwise rearrange .bench/node_modules under a script another worker runs
    (a no-op once they are there)."""
    workers = getattr(session.config.option, "numprocesses", None)
    if workers and not hasattr(session.config, "workerinput"):
        for name, spec in NPM_CLIENTS.items():
            npm_package(name, spec)
        anvil_binary()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With `--dist loadgroup`, xdist hands out whole groups: here a module, or a package of
    PACKAGE_GROUPS (a test of its own group mark keeps it)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_xdist_group(item.nodeid)))
