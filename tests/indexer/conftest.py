"""A devnet with demo traffic, indexed into each test database (SQLite; PostgreSQL too when
SNOWFIELD_TEST_PG is set); and a devnet with the X and atomic demos, indexed over the primary
network's interfaces, that the X-Chain and C-Chain atomic index tests share (built once for
both: the same traffic, the same indexer)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from web3 import Web3

from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.ids import ShortID
from snowfield.store.database import Database
from snowfield.testing import (
    RunningNode,
    database_urls,
    index_node,
    open_database,
    run_demo_rounds,
    serve_devnet,
)
from snowfield.workload.atomic_demo import run_atomic_demo
from snowfield.workload.platform_demo import demo_secret
from snowfield.workload.x_demo import run_x_demo
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary
from tests.node.test_node_apis import service


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


@dataclass(frozen=True)
class XDemo:
    devnet: RunningNode
    hrp: str
    signers: list[bytes]  # the X demo's: the demo wallet's key, then dev keys 0 and 1
    xchain: str  # blockchain ids
    cchain: str

    def addresses(self, chain: str) -> list[str]:
        """The signers' addresses on `chain` ("X", "C")."""
        raw = [ShortID.from_public_key(public_key_of(s)).raw for s in self.signers]
        return [format_address(chain, self.hrp, r) for r in raw]


@pytest.fixture(scope="package")
def x_demo() -> Iterator[XDemo]:
    """One validator; 4 rounds of the X demo (X→P and X→C exports among them), then 2 of the
    atomic demo (C→P exports)."""
    with serve_devnet(validators=1) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        secret = demo_secret(keys)
        signers = [secret, *keys[:2]]
        quiet = {"interval": 0, "stop": None, "log": lambda _line: None}
        asyncio.run(run_x_demo(devnet.base, signers, rounds=4, **quiet))  # type: ignore[arg-type]
        asyncio.run(run_atomic_demo(devnet.base, secret, rounds=2, **quiet))  # type: ignore[arg-type]
        info = service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]
        ids = {
            alias: service(devnet.base + "/ext/info", "info.getBlockchainID", {"alias": alias})[
                "result"
            ]["blockchainID"]
            for alias in ("X", "C")
        }
        hrp = hrp_for_network(int(info["networkID"]))
        yield XDemo(devnet, hrp, signers, str(ids["X"]), str(ids["C"]))


@pytest.fixture(scope="package", params=_db_kinds())
def x_demo_indexed(
    request: pytest.FixtureRequest, x_demo: XDemo, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """The X demo indexed into each test database (read-only for the tests)."""
    with open_database(_url(request.param, tmp_path_factory.mktemp("xdemo"))) as db:
        asyncio.run(sync_primary(db, x_demo.devnet.base))
        yield db
