"""primary_network_address_activity on the X-Chain over the devnet's X demo (a fungible asset,
AVAX transfers, NFT mints, exports): the X-Chain writer's messages delivered signed to a
receiver on 127.0.0.1 (the official client's validateWebhook checks the signature), the balances
against a fresh read and the data API, a threshold crossing, and an unwind of the X-Chain index
telling the receiver `removed`, then the txs indexed again as news under new ids."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from snowfield.api.app import create_data_app
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.ids import ShortID
from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.store import webhooks, x_chain
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.webhook_xchain import XLedger
from snowfield.store.webhooks import WebhookRow
from snowfield.store.x_address_queries import assets
from snowfield.store.x_documents import Assets
from snowfield.testing import open_database, serve_asgi, serve_devnet
from snowfield.webhooks import signing
from snowfield.workload.platform_demo import demo_secret
from snowfield.workload.x_demo import run_x_demo
from tests.conftest import _db_kinds, _url
from tests.node.test_node_apis import service
from tests.webhooks.receiver import Receiver, receiver, validate
from tests.webhooks.test_primary import _deliver_all

SUBS = ["balance_change", "balance_threshold"]


@dataclass
class XRun:
    base: str  # the devnet
    xchain: str
    avax: str
    wallets: list[str]  # bare bech32


async def _sync(db: Database, base: str, *, sync: bool = True) -> None:
    source = PlatformSource(base)
    try:
        indexer = PrimaryIndexer(db, source, batch_size=3)
        await (indexer.sync() if sync else indexer.prepare())
    finally:
        await source.aclose()


@pytest.fixture(scope="module")
def run() -> Iterator[XRun]:
    with serve_devnet(validators=1) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        signers = [demo_secret(keys), *keys[:2]]
        asyncio.run(
            run_x_demo(devnet.base, signers, rounds=4, interval=0, stop=None, log=lambda _l: None)
        )
        info = service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]
        hrp = hrp_for_network(int(info["networkID"]))
        xchain = service(devnet.base + "/ext/info", "info.getBlockchainID", {"alias": "X"})
        avax = service(devnet.base + "/ext/bc/P", "platform.getStakingAssetID", {})
        wallets = [
            format_address("X", hrp, ShortID.from_public_key(public_key_of(s)).raw)[2:]
            for s in signers
        ]
        yield XRun(
            devnet.base,
            str(xchain["result"]["blockchainID"]),
            str(avax["result"]["assetID"]),
            wallets,
        )


def _follow(db: Database, url: str, addresses: list[str], **threshold: str) -> WebhookRow:
    key, _ = create_key(db, "x hooks")
    metadata: dict[str, Any] = {"keyType": "addresses", "subEvents": SUBS}
    if threshold:
        metadata["balanceThresholdFilter"] = threshold
    draft = WebhookRow(
        "", key.id, "primary_network_address_activity", url, "x", "", "x-chain", None, "fuji",
        "active", 0, False, False, metadata,
    )  # fmt: skip
    webhooks.ensure_secret(db, key.id)
    return webhooks.create_webhook(db, draft, addresses)


@dataclass
class Indexed:
    db: Database
    hook: WebhookRow
    rx: Receiver


@pytest.fixture(scope="module", params=_db_kinds())
def indexed(
    run: XRun, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    with (
        receiver() as rx,
        open_database(_url(request.param, tmp_path_factory.mktemp("whx"))) as db,
    ):
        asyncio.run(_sync(db, run.base, sync=False))
        hook = _follow(db, rx.url, run.wallets)
        asyncio.run(_sync(db, run.base))
        _deliver_all(db)
        yield Indexed(db, hook, rx)


def _changes(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b["event"] for b in bodies if b["event"]["eventType"] == "balance_change"]


def test_every_tx_of_the_wallets_is_delivered_signed(run: XRun, indexed: Indexed) -> None:
    db, rx = indexed.db, indexed.rx
    secret = webhooks.shared_secret(db, indexed.hook.owner)
    assert secret is not None and rx.received
    verdicts = validate(secret, rx.received)
    assert all(v["name"] == "SDKValidationError" for v in verdicts), verdicts
    for r in rx.received:
        assert signing.verify(secret, r.body, r.headers["x-signature"])
    marks = ", ".join("?" for _ in run.wallets)
    named = db.query(
        f"SELECT DISTINCT tx_id FROM x_tx_addresses WHERE xchain = ? AND address IN ({marks})",
        (run.xchain, *run.wallets),
    )
    events = _changes(rx.bodies())
    assert {str(r[0]) for r in named} == {e["transaction"]["txHash"] for e in events}
    assert len(events) == len(named)
    positions = [int(e["txIndex"]) for e in events]
    assert positions == sorted(positions)
    kinds = {e["transaction"]["txType"] for e in events}
    assert {"BaseTx", "CreateAssetTx", "ExportTx"} <= kinds, kinds


def test_balances_equal_a_fresh_read_and_the_data_api(run: XRun, indexed: Indexed) -> None:
    db = indexed.db
    events = _changes(indexed.rx.bodies())
    with db.transaction() as w:
        for e in events:
            ledger = XLedger(w, run.xchain, e["addresses"], int(e["txIndex"]))
            ids = [a["assetId"] for k in e["balances"].values() for a in k]
            facts = Assets(run.avax, assets(w, run.xchain, ids))
            got = ledger.balances(facts, set(e["addresses"]), e["transaction"]["timestamp"])
            assert got == e["balances"], e["txIndex"]
    # A wallet's last change alone: the data API's balances of it now.
    with serve_asgi(create_data_app(db)) as api:
        for wallet in run.wallets:
            alone = [e for e in events if e["addresses"] == [wallet]]
            if not alone:
                continue
            now = httpx.get(
                f"{api}/v1/networks/testnet/blockchains/x-chain/balances",
                params={"addresses": wallet},
            ).json()["balances"]
            assert alone[-1]["balances"]["unlocked"] == now["unlocked"], wallet
            assert alone[-1]["balances"]["locked"] == now["locked"], wallet


def _unlocked_avax(event: dict[str, Any], avax: str) -> int:
    return sum(int(a["amount"]) for a in event["balances"]["unlocked"] if a["assetId"] == avax)


def test_a_threshold_fires_where_the_balance_falls_through_it(
    run: XRun, indexed: Indexed, tmp_path: Path
) -> None:
    """From the first run's balances of one wallet: a threshold between two of them fires
    exactly where the balance fell through it."""
    wallet = run.wallets[0]
    series = [
        (e["transaction"]["txHash"], _unlocked_avax(e, run.avax))
        for e in _changes(indexed.rx.bodies())
        if e["addresses"] == [wallet]
    ]
    falls = [(a[1], b) for a, b in itertools.pairwise(series) if b[1] < a[1]]
    assert falls, series
    high, (_, low) = falls[0]
    threshold = (high + low + 1) // 2  # low < threshold <= high
    with open_database(_url("sqlite", tmp_path)) as db:
        asyncio.run(_sync(db, run.base, sync=False))
        hook = _follow(
            db, "http://127.0.0.1:9/", [wallet], balanceType="unlocked",
            balanceThreshold=str(threshold),
        )  # fmt: skip
        asyncio.run(_sync(db, run.base))
        rows = db.query("SELECT body FROM webhook_outbox WHERE webhook_id = ?", (hook.id,))
    events = [orjson.loads(r[0])["event"] for r in rows]
    # This webhook follows the wallet alone: its balance changes are the wallet's whole series.
    alone = [(e["transaction"]["txHash"], _unlocked_avax(e, run.avax)) for e in _changes_of(events)]
    want = [t for (_, before), (t, after) in itertools.pairwise([("", 0), *alone])
            if before >= threshold > after]  # fmt: skip
    crossed = [e for e in events if e["eventType"] == "balance_threshold"]
    assert want and [e["transaction"]["txHash"] for e in crossed] == want
    for e in crossed:
        assert int(e["balanceBefore"]) >= threshold > int(e["balanceAfter"])
        assert e["addresses"] == [wallet] and e["balanceType"] == "unlocked"


def _changes_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["eventType"] == "balance_change"]


def test_an_unwind_tells_removed_and_the_txs_come_back_as_news(
    run: XRun, indexed: Indexed, tmp_path: Path
) -> None:
    with receiver() as rx, open_database(_url("sqlite", tmp_path)) as db:
        asyncio.run(_sync(db, run.base, sync=False))
        _follow(db, rx.url, run.wallets)
        asyncio.run(_sync(db, run.base))
        _deliver_all(db)
        first = {b["messageId"]: b for b in rx.bodies()}
        total = x_chain.next_index(db, run.xchain)
        cut = total // 2
        later = {m for m, b in first.items() if int(b["event"]["txIndex"]) >= cut}
        assert later and len(later) < len(first)
        x_chain.unwind(db, run.xchain, cut)
        _deliver_all(db)
        removed = [b for b in rx.bodies()[len(first) :] if b.get("removed")]
        assert {b["removedMessageId"] for b in removed} == later
        for b in removed:
            original = first[b["removedMessageId"]]
            assert b["event"] == original["event"] and b["messageId"] not in first
        asyncio.run(_sync(db, run.base))  # the same txs again: news under new ids
        _deliver_all(db)
        again = rx.bodies()[len(first) + len(removed) :]
        assert {b["event"]["transaction"]["txHash"] for b in again} == {
            first[m]["event"]["transaction"]["txHash"] for m in later
        }
        assert not {b["messageId"] for b in again} & set(first)
        assert not any(b.get("removed") for b in again)
