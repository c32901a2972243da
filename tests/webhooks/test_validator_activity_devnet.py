"""validator_activity end to end on the devnet: webhooks made with the official client, the
P-Chain demo traffic (a validator, a delegation, an L1 conversion, the rewards a day later) and
an L1 validator's balance top-up and disabling, indexed over the node's public interfaces,
delivered by the worker to a receiver on 127.0.0.1 and checked with the client's verifier."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from typing import Any

import pytest

from snowfield.aggregator.aggregate import AggregationRequest
from snowfield.api.app import create_data_app
from snowfield.formats.ids import ID, NodeID
from snowfield.formats.platform.components import BaseTxFields
from snowfield.formats.platform.l1_txs import (
    DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx,
    SetL1ValidatorWeightTx,
    initial_validation_id,
)
from snowfield.formats.platform.secp256k1fx import Input
from snowfield.formats.warp.platform_messages import L1ValidatorWeight, encode_message
from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.rpc.client import RpcClient
from snowfield.store import webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.testing import RunningNode, database_urls, open_database, serve_asgi, serve_devnet
from snowfield.webhooks.policy import UrlPolicy, networks
from snowfield.webhooks.worker import Worker
from snowfield.workload.platform_demo import (
    PlatformDemoReport,
    PWallet,
    demo_secret,
    run_platform_demo,
)
from tests.aggregator.test_aggregate import aggregate
from tests.aggregator.test_l1_validators import _issue, _register, _send_from_manager
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds
from tests.webhooks.receiver import Receiver, receiver, validate

STAKER = str(NodeID(hashlib.sha256(b"demo validator").digest()[:20]))  # the demo's seed
L1_NODE = str(NodeID(hashlib.sha256(b"demo l1").digest()[:20]))
THRESHOLD = 2 * 10**9  # the demo gives its L1 validator 1 AVAX
TOP_UP = 5 * 10**8
LOOPBACK = UrlPolicy(allow=networks(["127.0.0.0/8"]))


@pytest.fixture(params=_db_kinds())
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    urls = database_urls(tmp_path_factory.mktemp("validator_hooks"))
    with open_database(urls[0] if request.param == "sqlite" else urls[1]) as db:
        yield db


def _request(url: str, key: str, subs: list[str], **extra: object) -> dict[str, Any]:
    return {
        "eventType": "validator_activity",
        "url": url,
        "network": "fuji",
        "metadata": {
            "keyType": "nodeId",
            "keys": [key],
            "subEvents": {"validatorActivitySubEvents": subs},
            **extra,
        },
    }


async def _l1_txs(devnet: RunningNode, report: PlatformDemoReport) -> tuple[str, str]:
    """Tops up the demo L1 validator's balance, then disables it (the demo's key owns it)."""
    validation = initial_validation_id(ID.from_string(report.subnet_id), 0)
    secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
    async with RpcClient(f"{devnet.base}/ext/bc/P") as p:
        asset = ID.from_string(devnet.node.ids.avax_asset)
        wallet = PWallet(p, secret, devnet.node.settings.network_id, asset)

        def top_up(base: BaseTxFields) -> IncreaseL1ValidatorBalanceTx:
            return IncreaseL1ValidatorBalanceTx(base, validation, TOP_UP)

        def disable(base: BaseTxFields) -> DisableL1ValidatorTx:
            return DisableL1ValidatorTx(base, validation, Input((0,)))

        increased = await wallet.issue(top_up, TOP_UP)
        disabled = await wallet.issue(disable, auths=1)
    return increased, disabled


def _deliver(db: Database) -> None:
    async def run() -> None:
        worker = Worker(db, policy=LOOPBACK)
        try:
            while await worker.run_once():
                pass
        finally:
            await worker.close()

    asyncio.run(run())


def _by(rx: Receiver, hook: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for body in rx.bodies():
        if body["webhookId"] == hook:
            out.setdefault(body["event"]["subEventType"], []).append(body["event"])
    return out


STAKE_SUBS = ["validator_stake", "delegator_stake", "reward_distribution"]
L1_SUBS = [
    "l1_validator_balance_increased",
    "l1_validator_disabled",
    "l1_validator_removed",
    "l1_validator_balance_threshold",
]


async def _flow(
    devnet: RunningNode, store: Database, api: str, api_key: str, url: str
) -> tuple[list[str], PlatformDemoReport, tuple[str, str]]:
    """Webhooks made with the client, the demo, a sync, the L1 txs, a sync (one event loop:
    the indexer's clients live in it)."""
    source = PlatformSource(devnet.base)
    try:
        indexer = PrimaryIndexer(store, source, batch_size=3)
        indexer.observer.interval = 0  # observe at every sync
        await indexer.prepare()  # the network is known: webhooks may name it
        threshold = {"l1ValidatorFeeBalanceThreshold": str(THRESHOLD)}
        calls = [
            Call("webhooks.create", _request(url, STAKER, STAKE_SUBS)),
            Call("webhooks.create", _request(url, L1_NODE, L1_SUBS, **threshold)),
        ]
        made = await asyncio.to_thread(drive, calls, data=api, api_key=api_key)
        demo_key = demo_secret([k.private_key for k in devnet.node.dev_keys])
        report = await run_platform_demo(devnet.base, demo_key, lambda _line: None)
        await indexer.sync()
        l1_txs = await _l1_txs(devnet, report)
        await indexer.sync()
    finally:
        await source.aclose()
    return [m.unwrap()["id"] for m in made], report, l1_txs


def test_the_demo_traffic_reaches_validator_webhooks(store: Database) -> None:
    key, api_key = create_key(store, "owner")
    with (
        serve_devnet(validators=2) as devnet,
        receiver() as rx,
        serve_asgi(create_data_app(store)) as api,
    ):
        (staking, l1), report, (increased, disabled) = asyncio.run(
            _flow(devnet, store, api, api_key, rx.url)
        )
        _deliver(store)
        secret = webhooks.shared_secret(store, key.id)
        assert secret is not None
        verdicts = validate(secret, rx.received)
    # Every delivery authenticated by the client (whose models then know no validator payload).
    assert rx.received and {v.get("name") for v in verdicts} == {"SDKValidationError"}, verdicts
    stakes = _by(rx, staking)
    (validator,) = stakes["validator_stake"]
    assert validator["txHash"] == report.txs["addValidator"]
    assert validator["staker"]["nodeId"] == STAKER
    assert validator["transaction"]["txType"] == "AddPermissionlessValidatorTx"
    (delegator,) = stakes["delegator_stake"]
    assert delegator["txHash"] == report.txs["addDelegator"]
    paid = {r["reward"]["stakingTxHash"]: r["reward"] for r in stakes["reward_distribution"]}
    assert set(paid) == {report.txs["addValidator"], report.txs["addDelegator"]}
    assert all(int(r["amount"]) > 0 and r["nodeId"] == STAKER for r in paid.values())
    events = _by(rx, l1)
    (below,) = events["l1_validator_balance_threshold"]
    assert 0 < below["l1ValidatorDetails"]["remainingBalance"] < THRESHOLD
    assert below["l1ValidatorDetails"]["subnetId"] == report.subnet_id
    (top_up,) = events["l1_validator_balance_increased"]
    assert top_up["txHash"] == increased
    assert top_up["l1ValidatorDetails"] == {
        "validationId": str(initial_validation_id(ID.from_string(report.subnet_id), 0)),
        "nodeId": L1_NODE,
        "subnetId": report.subnet_id,
        "balanceChange": TOP_UP,
    }
    # Disabled by its tx: one event (the observation's balance of 0 is no second one).
    (off,) = events["l1_validator_disabled"]
    assert off["txHash"] == disabled and "reason" not in off
    assert "l1_validator_removed" not in events


async def _index(devnet: RunningNode, store: Database) -> None:
    source = PlatformSource(devnet.base)
    try:
        await PrimaryIndexer(store, source, batch_size=3).sync()
    finally:
        await source.aclose()


def test_an_l1_validator_its_manager_removes(store: Database) -> None:
    """RegisterL1ValidatorTx then SetL1ValidatorWeightTx to 0, from Warp messages of the L1's
    validator manager signed by the L1's validators (as tests/aggregator does)."""
    key, api_key = create_key(store, "owner")
    with (
        serve_devnet(validators=4, l1=("managed",)) as devnet,
        receiver() as rx,
        serve_asgi(create_data_app(store)) as api,
    ):
        (chain,) = [c for c in devnet.node.platform.chain.blockchains() if c.name == "managed"]
        subnet = str(chain.subnet_id)
        asyncio.run(_index(devnet, store))
        request = _request(rx.url, subnet, L1_SUBS[:3])
        request["metadata"]["keyType"] = "subnetId"
        (made,) = drive([Call("webhooks.create", request)], data=api, api_key=api_key)
        hook = made.unwrap()["id"]
        node_id = bytes([7]) * 20
        expiry = int(devnet.node.clock()) + 3600
        register, _ = _register(devnet, str(chain.blockchain_id), chain.subnet_id, node_id,
                                expiry, 50)  # fmt: skip
        weight = L1ValidatorWeight(register.validation_id, 0, 0)
        unsigned = _send_from_manager(devnet, str(chain.blockchain_id), encode_message(weight))
        signed, _ = asyncio.run(aggregate(devnet, AggregationRequest(unsigned)))
        removed = asyncio.run(
            _issue(devnet, lambda base: SetL1ValidatorWeightTx(base, signed.encode()))
        )
        asyncio.run(_index(devnet, store))
        _deliver(store)
        secret = webhooks.shared_secret(store, key.id)
        assert secret is not None
        verdicts = validate(secret, rx.received)
    assert rx.received and {v.get("name") for v in verdicts} == {"SDKValidationError"}, verdicts
    events = _by(rx, hook)
    assert set(events) == {"l1_validator_removed"}
    (gone,) = events["l1_validator_removed"]
    assert gone["txHash"] == removed
    assert gone["l1ValidatorDetails"] == {
        "validationId": str(register.validation_id),
        "nodeId": str(NodeID(node_id)),
        "subnetId": subnet,
        "weight": 0,
        "remainingBalance": 0,
    }
