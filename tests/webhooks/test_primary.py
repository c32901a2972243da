"""primary_network_address_activity end to end over the devnet's P-Chain demo traffic (stake,
delegate, subnet, chain, L1, a day later the rewards): webhooks made with the official client,
the primary indexer's writer filling the outbox, the worker's signed POSTs to a receiver on
127.0.0.1, checked with the client's validateWebhook, for each sub-event; the figures against
the data API's own balances and UTXOs."""

from __future__ import annotations

import asyncio
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
from snowfield.indexer.primary import P_CHAIN_ID, PlatformSource, PrimaryIndexer
from snowfield.store import webhook_primary, webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.webhook_primary_balances import Ledger, balances
from snowfield.store.webhooks import WebhookRow
from snowfield.testing import open_database, serve_asgi, serve_devnet
from snowfield.webhooks import signing
from snowfield.webhooks.worker import Worker
from snowfield.workload.platform_demo import PlatformDemoReport, demo_secret, run_platform_demo
from tests.api.conftest import assert_matches
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds, _url
from tests.node.test_node_apis import service
from tests.webhooks.receiver import Receiver, receiver, validate
from tests.webhooks.test_delivery import LOOPBACK, Clock

HEADER = "x-service-api-key"
AVAX = 1_000_000_000
THRESHOLD = 1_000 * AVAX  # the demo validator's 2,000 AVAX stake falls below it when it ends
BASE = "/v1/networks/testnet/blockchains/p-chain"


@dataclass
class Delivered:
    db: Database
    api: str
    key: str
    owner: str
    report: PlatformDemoReport
    wallet: str  # bare bech32
    rewards: str
    hooks: dict[str, str]  # name -> webhook id
    rx: Receiver
    base: str  # the devnet


def _bare(address: str) -> str:
    return address[2:] if address.startswith("P-") else address


@pytest.fixture(scope="module", params=_db_kinds())
def delivered(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Delivered]:
    with serve_devnet(validators=2) as devnet, receiver() as rx:
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        report = asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        network_id = int(
            service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]["networkID"]
        )
        hrp = hrp_for_network(network_id)
        wallet = format_address("P", hrp, ShortID.from_public_key(public_key_of(secret)).raw)
        with open_database(_url(request.param, tmp_path_factory.mktemp("whpn"))) as db:
            asyncio.run(_index(db, devnet.base, sync=False))  # the network: hooks name it
            key, plain = create_key(db, "primary webhooks")
            with serve_asgi(create_data_app(db)) as api:
                hooks = _create_hooks(api, plain, rx.url, wallet, report.rewards_address)
                asyncio.run(_index(db, devnet.base, sync=True))
                _deliver_all(db)
                yield Delivered(
                    db, api, plain, key.id, report, _bare(wallet),
                    _bare(report.rewards_address), hooks, rx, devnet.base,
                )  # fmt: skip


def _create_hooks(api: str, key: str, url: str, wallet: str, rewards: str) -> dict[str, str]:
    """Through the official client: one webhook on the demo wallet (balance_change and
    balance_threshold on its staked AVAX), one on the rewards owner (reward_distribution)."""

    def create(keys: list[str], subs: list[str], **metadata: Any) -> Call:
        body = {
            "eventType": "primary_network_address_activity",
            "url": url,
            "network": "fuji",
            "chainId": P_CHAIN_ID,
            "name": subs[0],
            "metadata": {
                "keyType": "addresses",
                "keys": keys,
                "subEvents": {"addressActivitySubEvents": subs},
                **metadata,
            },
        }
        return Call("webhooks.create", body)

    threshold = {"balanceType": "unlockedStaked", "balanceThreshold": str(THRESHOLD)}
    results = drive(
        [
            create(
                [wallet], ["balance_change", "balance_threshold"], balanceThresholdFilter=threshold
            ),
            create([rewards], ["reward_distribution"]),
        ],
        data=api,
        api_key=key,
    )
    wallet_hook, rewards_hook = (r.unwrap() for r in results)
    assert wallet_hook["eventType"] == "primary_network_address_activity"
    assert wallet_hook["metadata"]["balanceThresholdFilter"] == threshold
    assert wallet_hook["metadata"]["keys"] == [_bare(wallet)]
    return {"wallet": wallet_hook["id"], "rewards": rewards_hook["id"]}


async def _index(db: Database, base: str, *, sync: bool) -> None:
    source = PlatformSource(base)
    try:
        indexer = PrimaryIndexer(db, source, batch_size=3)
        await (indexer.sync() if sync else indexer.prepare())
    finally:
        await source.aclose()


def _deliver_all(db: Database) -> None:
    async def run() -> None:
        worker = Worker(db, policy=LOOPBACK, clock=Clock())
        try:
            while await worker.run_once():
                pass
        finally:
            await worker.close()

    asyncio.run(run())


def _events(d: Delivered, hook: str, sub_event: str) -> list[dict[str, Any]]:
    return [
        b
        for b in d.rx.bodies()
        if b["webhookId"] == d.hooks[hook] and b["event"]["eventType"] == sub_event
    ]


def test_every_delivery_is_signed_for_the_official_client(delivered: Delivered) -> None:
    d = delivered
    secret = webhooks.shared_secret(d.db, d.owner)
    assert secret is not None and d.rx.received
    verdicts = validate(secret, d.rx.received)
    # The client's validateWebhook checks x-signature first (a bad one is a
    # WebhookAuthenticationError), then parses the body with the one payload model it has,
    # address_activity's: these pass the signature and are not that model.
    assert all(
        v["name"] == "SDKValidationError" and "No matching schema" in v["message"] for v in verdicts
    ), verdicts
    forged = validate("not-the-secret", d.rx.received[:1])
    assert forged[0]["ok"] is False and "Authentication" in forged[0]["name"]
    for r in d.rx.received:
        assert signing.verify(secret, r.body, r.headers["x-signature"])
    bodies = d.rx.bodies()
    assert {b["eventType"] for b in bodies} == {"primary_network_address_activity"}
    assert len({b["messageId"] for b in bodies}) == len(bodies)  # each sent once
    subs = {(b["webhookId"], b["event"]["eventType"]) for b in bodies}
    assert subs == {
        (d.hooks["wallet"], "balance_change"),
        (d.hooks["wallet"], "balance_threshold"),
        (d.hooks["rewards"], "reward_distribution"),
    }


def _balances(d: Delivered, address: str) -> dict[str, Any]:
    got = httpx.get(f"{d.api}{BASE}/balances", params={"addresses": address})
    assert got.status_code == 200, got.text
    return dict(got.json()["balances"])


def test_balance_change_reports_the_txs_and_the_balances_after(delivered: Delivered) -> None:
    d = delivered
    events = _events(d, "wallet", "balance_change")
    txs = [e["event"]["transaction"]["txHash"] for e in events]
    for name in ("addValidator", "addDelegator", "createSubnet", "createChain"):
        assert d.report.txs[name] in txs
    heights = [int(e["event"]["blockNumber"]) for e in events]
    assert heights == sorted(heights)  # block order
    first = next(
        e["event"]
        for e in events
        if e["event"]["transaction"]["txHash"] == d.report.txs["addValidator"]
    )
    assert first["addresses"] == [d.wallet] and first["chainId"] == P_CHAIN_ID
    assert first["transaction"]["txType"] == "AddPermissionlessValidatorTx"
    staked = sum(int(a["amount"]) for a in first["balances"]["unlockedStaked"])
    assert staked >= 2_000 * AVAX  # its own stake, at once current
    # The last change is the wallet's latest state: the data API's balances now.
    now = _balances(d, d.wallet)
    last = events[-1]["event"]["balances"]
    for kind, amounts in last.items():
        assert amounts == now[kind], kind


def test_balance_threshold_fires_once_when_the_stake_returns(delivered: Delivered) -> None:
    d = delivered
    events = [e["event"] for e in _events(d, "wallet", "balance_threshold")]
    assert len(events) == 1, events
    e = events[0]
    assert e["addresses"] == [d.wallet] and e["balanceType"] == "unlockedStaked"
    assert int(e["balanceBefore"]) >= THRESHOLD > int(e["balanceAfter"])
    assert e["balanceThreshold"] == str(THRESHOLD)
    assert e["transaction"]["txType"] == "RewardValidatorTx"
    assert e["transaction"]["stakingTxHash"] == d.report.txs["addValidator"]


def test_reward_distribution_names_every_reward_utxo(delivered: Delivered) -> None:
    d = delivered
    events = [e["event"] for e in _events(d, "rewards", "reward_distribution")]
    got = httpx.get(f"{d.api}{BASE}/utxos", params={"addresses": d.rewards, "includeSpent": "true"})
    assert got.status_code == 200, got.text
    rewarded = {u["utxoId"]: u for u in got.json()["utxos"] if "rewardType" in u}
    assert rewarded and {e["utxo"]["utxoId"] for e in events} == set(rewarded)
    for e in events:
        assert e["addresses"] == [d.rewards]
        assert e["amount"] == e["utxo"]["amount"] == rewarded[e["utxo"]["utxoId"]]["amount"]
        assert int(e["amount"]) > 0 and e["rewardType"] in (
            "VALIDATOR",
            "DELEGATOR",
            "VALIDATOR_FEE",
        )
    staking = {e["stakingTxHash"] for e in events}
    assert staking == {d.report.txs["addValidator"], d.report.txs["addDelegator"]}


def test_the_delivery_log_names_the_p_chain_and_nothing_is_sent_twice(
    delivered: Delivered,
) -> None:
    d = delivered
    got = httpx.get(f"{d.api}/v1/webhooks/{d.hooks['rewards']}/deliveries", headers={HEADER: d.key})
    assert got.status_code == 200, got.text
    body = got.json()
    assert_matches(body, "ListWebhookDeliveriesResponse")
    assert body["deliveries"] and {x["chainId"] for x in body["deliveries"]} == {P_CHAIN_ID}
    assert {x["status"] for x in body["deliveries"]} == {"delivered"}
    before = len(d.rx.received)
    _deliver_all(d.db)
    assert len(d.rx.received) == before


def test_the_ledger_moved_through_a_batch_equals_a_read_at_each_height(
    delivered: Delivered,
) -> None:
    """The writer moves the balances block by block (batches of 3 here); read afresh from the
    stored rows at each reported height, they are the same."""
    d = delivered
    avax = d.db.query_one("SELECT avax_asset FROM primary_networks")
    assert avax is not None
    events = [e["event"] for e in _events(d, "wallet", "balance_change")]
    with d.db.transaction() as w:
        for e in events:
            ledger = Ledger(w, P_CHAIN_ID, [d.wallet], int(e["blockNumber"]))
            fresh = balances(str(avax[0]), ledger.owned(e["blockTimestamp"]))
            assert fresh == e["balances"], e["blockNumber"]


def test_a_crash_between_the_outbox_and_the_commit_loses_and_repeats_nothing(
    delivered: Delivered, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer dies after writing a batch's messages, before its commit (as a kill -9
    would): the batch's rows and messages go together; the next sync writes each once."""
    d = delivered
    real = webhook_primary.enqueue
    calls = []

    def crash_on_the_third(*args: Any) -> int:
        written = real(*args)
        calls.append(written)
        if len(calls) == 3:
            raise RuntimeError("killed before the commit")
        return written

    with open_database(_url("sqlite", tmp_path)) as db:
        asyncio.run(_index(db, d.base, sync=False))
        key, _ = create_key(db, "again")
        hook = d.db.query_one("SELECT metadata FROM webhooks WHERE id = ?", (d.hooks["wallet"],))
        assert hook is not None
        draft = WebhookRow(
            "", key.id, "primary_network_address_activity", "http://127.0.0.1:9/", "", "",
            P_CHAIN_ID, None, "fuji", "active", 0, False, False, orjson.loads(hook[0]),
        )  # fmt: skip
        made = webhooks.create_webhook(db, draft, [d.wallet])
        monkeypatch.setattr(webhook_primary, "enqueue", crash_on_the_third)
        with pytest.raises(RuntimeError, match="killed"):
            asyncio.run(_index(db, d.base, sync=True))
        assert calls[2] > 0  # the batch that died had messages
        assert sum(calls[:2]) == len(_bodies(db, made.id))  # and left none
        monkeypatch.setattr(webhook_primary, "enqueue", real)
        asyncio.run(_index(db, d.base, sync=True))
        again = _bodies(db, made.id)
    # Every message the first store delivered for the wallet, once, nothing else.
    want = sorted(_what(b) for b in d.rx.bodies() if b["webhookId"] == d.hooks["wallet"])
    assert sorted(_what(b) for b in again) == want


def _bodies(db: Database, hook_id: str) -> list[dict[str, Any]]:
    rows = db.query("SELECT body FROM webhook_outbox WHERE webhook_id = ?", (hook_id,))
    return [orjson.loads(r[0]) for r in rows]


def _what(body: dict[str, Any]) -> tuple[str, str, str]:
    e = body["event"]
    return (e["eventType"], e["transaction"]["txHash"], ",".join(e["addresses"]))
