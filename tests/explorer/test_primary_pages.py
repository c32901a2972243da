"""The explorer's P-Chain address and transaction pages over the devnet's P-Chain demo traffic,
indexed by the primary indexer: balances, UTXOs and transactions as the data API and the node
say, a transaction's inputs, outputs, fee and fields, and search by a P- address."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.site import ExplorerConfig
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address
from snowfield.formats.ids import ShortID
from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.writes import upsert_chain
from snowfield.testing import open_database, serve_asgi, serve_devnet
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from tests.explorer.conftest import browse, one, shown
from tests.node.test_node_apis import service

P = "/v1/networks/fuji/blockchains/p-chain"


async def _sync(db: Database, base: str) -> None:
    source = PlatformSource(base)
    try:
        await PrimaryIndexer(db, source, batch_size=4).sync()
    finally:
        await source.aclose()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """(explorer base URL, the demo wallet's P- address, the node's base URL)."""
    with serve_devnet(validators=2) as devnet:
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        info = service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]
        hrp = "local" if int(info["networkID"]) == 12345 else "fuji"
        wallet = format_address("P", hrp, ShortID.from_public_key(public_key_of(secret)).raw)
        tmp: Path = tmp_path_factory.mktemp("px-site")
        with open_database(str(tmp / "snowfield.db")) as db:
            upsert_chain(
                db, ChainRow(chain_id=43112, name="C-Chain", network="local", rpc_url=devnet.base)
            )
            asyncio.run(_sync(db, devnet.base))
            app = create_data_app(db, policy=RatePolicy(10**9, 10**9), explorer=ExplorerConfig())
            with serve_asgi(app, name="explorer") as base:
                yield base, wallet, devnet.base


def _api(base: str, path: str, **params: Any) -> Any:
    got = httpx.get(base + path, params=params, timeout=30)
    assert got.status_code == 200, got.text
    return got.json()


def test_address_and_transaction_pages(site: tuple[str, str, str]) -> None:
    base, wallet, node = site
    txs = _api(base, f"{P}/transactions", addresses=wallet, pageSize=25)["transactions"]
    staking = next(t for t in txs if t["txType"] == "AddPermissionlessValidatorTx")
    with_memo = txs[0]
    steps: list[dict[str, Any]] = [
        {"name": "address", "url": f"/#/primary/p/address/{wallet}", "shot": "p-address.png"},
        {"name": "utxos", "click": "[data-tab=utxos]"},
        {"name": "tx", "url": f"/#/primary/p/tx/{staking['txHash']}", "shot": "p-tx.png"},
        {"name": "tx-latest", "url": f"/#/primary/p/tx/{with_memo['txHash']}"},
        {"name": "search", "url": "/", "idle": True},
        {"name": "search-go", "search": wallet},
        {"name": "unknown", "url": f"/#/primary/p/tx/{'1' * 32}LpoYY"},
        {"name": "x-chain", "url": f"/#/primary/x/address/X-{wallet[2:]}"},
    ]
    walk = browse(base, [{"url": None, **s} for s in steps])
    page = walk["address"]
    assert page["state"] == "ready", page["text"][:800]
    assert one(page, "p-address")[0] == wallet
    node_balance = service(node + "/ext/bc/P", "platform.getBalance", {"addresses": [wallet]})
    unlocked = [v for _, v in shown(page, "balance") if v and v.startswith("unlockedUnstaked:")]
    assert unlocked == [f"unlockedUnstaked:{node_balance['result']['unlocked']}"]
    listed = [t for t, _ in shown(page, "p-tx-type")]
    assert listed == [t["txType"] for t in txs]
    utxos = walk["utxos"]
    assert utxos["state"] == "ready", utxos["text"][:800]
    every = _api(base, f"{P}/utxos", addresses=wallet, includeSpent="true", pageSize=25)["utxos"]
    assert [v for _, v in shown(utxos, "utxo")] == [u["utxoId"] for u in every]
    tx = walk["tx"]
    assert tx["state"] == "ready", tx["text"][:800]
    assert one(tx, "p-tx-kind")[0] == "AddPermissionlessValidatorTx"
    assert one(tx, "p-inputs")[1] == str(len(staking["consumedUtxos"]))
    assert one(tx, "p-outputs")[1] == str(len(staking["emittedUtxos"]))
    fields = {v for _, v in shown(tx, "p-field")}
    assert {"nodeId", "subnetId", "startTimestamp", "endTimestamp"} <= fields
    assert "AVAX" in one(tx, "p-tx-fee")[0]
    assert walk["tx-latest"]["state"] == "ready"
    assert walk["search-go"]["hash"] == f"#/primary/p/address/{wallet}"
    assert walk["unknown"]["error"] == "notfound"
    # The X-Chain is indexed: its parts answer from the index. This wallet made no X-Chain tx;
    # it holds the X-Chain genesis allocation, as the node says.
    x_page = walk["x-chain"]
    assert x_page["state"] == "ready", x_page["text"][:800]
    assert "not indexed" not in x_page["text"]
    assert "No transactions." in x_page["text"]
    x_balance = service(
        node + "/ext/bc/X", "avm.getBalance", {"address": f"X-{wallet[2:]}", "assetID": "AVAX"}
    )["result"]["balance"]
    whole, rest = divmod(int(x_balance), 10**9)
    assert whole > 0 and rest == 0  # the devnet's genesis allocates whole AVAX
    assert f"Unlocked\tAVAX\t{whole:,} AVAX\t1" in x_page["text"]
