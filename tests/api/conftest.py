"""Builders for data-API tests: a synthetic chain written through the store's own writes, a real
uvicorn server on a free loopback port, and checks of JSON shapes against the OpenAPI document."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonschema_rs
import pytest
from starlette.types import ASGIApp

from snowfield.api.app import OPERATIONS, create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.openapi import openapi_document
from snowfield.api.ratelimit import Limiter, MemoryLimiter
from snowfield.cli.compose import data_api_error
from snowfield.store.database import Database
from snowfield.store.rows import (
    BalanceRow,
    BlockBundle,
    BlockRow,
    ChainRow,
    ContractRow,
    InternalTxRow,
    NftRow,
    TokenRow,
    TransferRow,
    TxRow,
)
from snowfield.store.writes import upsert_chain, write_batch
from snowfield.testing import open_database, serve_asgi
from tests.conftest import _db_kinds, _url

CHAIN = 43112
OTHER_CHAIN = 43114
BLOCKCHAIN_ID = "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"
ALICE = "0x" + "a1" * 20
BOB = "0x" + "b0" * 20
CAROL = "0x" + "c4" * 20
TOKEN = "0x" + "70" * 20  # ERC-20
NFT = "0x" + "7f" * 20  # ERC-721
MULTI = "0x" + "15" * 20  # ERC-1155
FACTORY = "0x" + "fa" * 20
CHILD = "0x" + "cd" * 20
ZERO = "0x" + "00" * 20
WEI = 10**18


def _hash(kind: int, n: int) -> str:
    return f"0x{kind:02x}{n:062x}"


@dataclass
class ChainBuilder:
    """Writes blocks of a fixed pattern, so every operation has something to list:
    tx0 native ALICE→BOB; tx1 ERC-20 ALICE→BOB with an internal call TOKEN→CAROL;
    even blocks mint NFT #n to ALICE; odd blocks > 1 move NFT #(n-1) to BOB;
    every third block an ERC-1155 transfer ALICE→BOB; block 1 deploys FACTORY and CHILD."""

    db: Database
    chain_id: int = CHAIN
    height: int = 0
    txs: int = 0
    minted: list[int] = field(default_factory=list)

    def add(self, count: int, extra_nfts: tuple[NftRow, ...] = ()) -> None:
        """`count` more blocks; `extra_nfts`: NFT rows written with them beside the pattern's."""
        bundles = [self._block(self.height + i + 1) for i in range(count)]
        tokens = [
            TokenRow(self.chain_id, TOKEN, "ERC-20", "Token", "TOK", 6, 1),
            TokenRow(self.chain_id, NFT, "ERC-721", "Art", "ART", None, 1),
            TokenRow(self.chain_id, MULTI, "ERC-1155", None, None, None, 1),
            TokenRow(self.chain_id, FACTORY, "UNKNOWN", None, None, None, 1),
        ]
        nfts = [
            NftRow(
                self.chain_id,
                NFT,
                n,
                "ERC-721",
                f"ipfs://art/{n}",
                "indexed",
                {"name": f"Art #{n}", "image": f"ipfs://img/{n}", "attributes": [{"v": n}]},
                1_700_000_000,
                n,
            )
            for n in range(self.height + 1, self.height + count + 1)
            if n % 2 == 0
        ]
        write_batch(self.db, self.chain_id, bundles, tokens, [*nfts, *extra_nfts])
        self.height += count

    def _tx(self, n: int, i: int, to: str | None, selector: str, **kw: Any) -> TxRow:
        self.txs += 1
        return TxRow(
            self.chain_id, n, i, _hash(1, n * 16 + i), _hash(0, n), 1_700_000_000 + n * 2,
            ALICE, to, kw.get("value", 0), n * 16 + i, 100_000, 50_000, 25 * 10**9, 2,
            kw.get("status", 1), selector, kw.get("created"),
        )  # fmt: skip

    def _transfer(self, n: int, i: int, log: int, token: str, kind: str, **kw: Any) -> TransferRow:
        return TransferRow(
            self.chain_id, n, i, log, 0, _hash(1, n * 16 + i), 1_700_000_000 + n * 2, token,
            kind, kw.get("src", ALICE), kw.get("dst", BOB), kw.get("token_id"), kw.get("value", 1),
        )  # fmt: skip

    def _block(self, n: int) -> BlockBundle:
        txs = [
            self._tx(n, 0, BOB, "", value=n * WEI),
            self._tx(n, 1, TOKEN, "0xa9059cbb"),
        ]
        transfers = [self._transfer(n, 1, 0, TOKEN, "ERC-20", value=10**24 + n)]
        internals = [
            InternalTxRow(
                self.chain_id, n, 1, 0, txs[1].hash, TOKEN, CAROL, "CALL", n, 9000, 100, False
            )
        ]
        activity = [(ALICE, 0), (BOB, 0), (ALICE, 1), (TOKEN, 1), (BOB, 1), (CAROL, 1)]
        contracts: list[ContractRow] = []
        if n % 2 == 0:
            txs.append(self._tx(n, 2, NFT, "0x6a627842"))
            transfers.append(
                self._transfer(n, 2, 1, NFT, "ERC-721", src=ZERO, dst=ALICE, token_id=n)
            )
            activity += [(ALICE, 2), (NFT, 2)]
        elif n > 1:
            txs.append(self._tx(n, 2, NFT, "0x42842e0e"))
            transfers.append(self._transfer(n, 2, 1, NFT, "ERC-721", token_id=n - 1))
            activity += [(ALICE, 2), (NFT, 2), (BOB, 2)]
        if n % 3 == 0:
            i = len(txs)
            txs.append(self._tx(n, i, MULTI, "0xf242432a"))
            transfers.append(self._transfer(n, i, 2, MULTI, "ERC-1155", token_id=7, value=n))
            activity += [(ALICE, i), (MULTI, i), (BOB, i)]
        if n == 1:
            i = len(txs)
            txs.append(self._tx(n, i, None, "0x60806040", created=FACTORY))
            internals.append(
                InternalTxRow(
                    self.chain_id, n, i, 0, txs[-1].hash, FACTORY, CHILD, "CREATE2", 0, 1, 1, False
                )
            )
            contracts += [
                ContractRow(self.chain_id, FACTORY, n, i, txs[-1].hash, ALICE, None, "CREATE"),
                ContractRow(self.chain_id, CHILD, n, i, txs[-1].hash, ALICE, FACTORY, "CREATE2"),
            ]
            activity += [(ALICE, i), (FACTORY, i), (CHILD, i)]
        block = BlockRow(
            self.chain_id, n, _hash(0, n), _hash(0, n - 1), 1_700_000_000 + n * 2,
            len(txs) * 50_000, 15_000_000, 25 * 10**9, len(txs), ZERO,
        )  # fmt: skip
        balances = (BalanceRow(self.chain_id, ALICE, n, 10_000 * WEI - n * WEI),)
        return BlockBundle(
            block, tuple(txs), tuple(transfers), tuple(internals), tuple(contracts), balances,
            tuple(activity),
        )  # fmt: skip


def add_chains(db: Database) -> None:
    upsert_chain(
        db,
        ChainRow(
            chain_id=CHAIN,
            name="Local C-Chain",
            network="local",
            rpc_url="http://127.0.0.1:9650/ext/bc/C/rpc",
            blockchain_id=BLOCKCHAIN_ID,
            description="the devnet",
            features=("nftIndexing",),
            multicall="0x" + "ca" * 20,
        ),
    )
    upsert_chain(
        db,
        ChainRow(
            chain_id=OTHER_CHAIN,
            name="Main C-Chain",
            network="mainnet",
            rpc_url="https://example.invalid/rpc",
            features=("webhooks", "teleporter"),
            token_logo="https://example.invalid/avax.png",
        ),
    )


@pytest.fixture(scope="module", params=_db_kinds())
def filled(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """A database with both chains and 12 blocks of the builder's pattern (read-only tests)."""
    with open_database(_url(request.param, tmp_path_factory.mktemp("db"))) as opened:
        add_chains(opened)
        ChainBuilder(opened).add(12)
        yield opened


@contextlib.contextmanager
def serve_app(app: ASGIApp) -> Iterator[str]:
    """The app on a real uvicorn server at 127.0.0.1:<free port>; yields the base URL."""
    with serve_asgi(app, name="data-api", render=data_api_error) as base:
        yield base


def frozen_clock() -> float:
    return 1_800_000_030.0  # 30 s into a window


@contextlib.contextmanager
def api_client(
    db: Database, *, policy: RatePolicy | None = None, limiter: Limiter | None = None
) -> Iterator[httpx.Client]:
    """An HTTP client on a real server of `create_data_app(db, ...)`; the default limiter's clock
    stands still, so no test sees its window roll over mid-way."""
    limiter = limiter or MemoryLimiter(clock=frozen_clock)
    app = create_data_app(db, policy=policy or RatePolicy(10**9, 10**9), limiter=limiter)
    with serve_app(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def api(filled: Database) -> Iterator[httpx.Client]:
    with api_client(filled) as client:
        yield client


DOCUMENT = openapi_document(OPERATIONS, title="test", version="0")


# Fields the real service requires and allows to be null (its clients' z.nullable).
REQUIRED_NULLABLE = frozenset({"tokenReputation"})


def assert_no_null(value: Any, path: str = "$") -> None:
    """Optional fields are omitted, never null: checked at every depth."""
    assert value is not None, f"null at {path}"
    if isinstance(value, dict):
        for key, item in value.items():
            if key in REQUIRED_NULLABLE and item is None:
                continue
            assert_no_null(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            assert_no_null(item, f"{path}[{i}]")


def assert_matches(body: Any, schema_name: str) -> None:
    """`body` is valid under the OpenAPI document's schema and holds no null anywhere."""
    assert_no_null(body)
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": DOCUMENT["components"]}
    jsonschema_rs.validator_for(schema).validate(body)


def assert_error(response: httpx.Response, status: int, mentions: str = "") -> dict[str, Any]:
    """An error in the one shape, with `mentions` (e.g. the parameter's name) in its message."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    assert_matches(body, "Error")
    assert body["statusCode"] == status
    assert mentions in body["message"]
    return body


def walk(
    client: httpx.Client,
    path: str,
    field: str,
    schema: str,
    params: dict[str, Any],
    between: Callable[[], None] = lambda: None,
) -> list[dict[str, Any]]:
    """Every page from the first until no nextPageToken, calling `between` after each page."""
    items: list[dict[str, Any]] = []
    query = dict(params)
    for _ in range(1000):
        response = client.get(path, params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        assert_matches(body, schema)
        items += body[field]
        if "nextPageToken" not in body:
            return items
        assert body["nextPageToken"] and len(body[field]) == params["pageSize"]
        query["pageToken"] = body["nextPageToken"]
        between()
    raise AssertionError("paging did not end")
