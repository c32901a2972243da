"""validator_activity webhooks over a real store and a real receiver on 127.0.0.1: the P-Chain
block writer's stake, reward and L1 validator events and the observation's balance events
reach the webhooks whose key and filters they match, once each, signed so that chainkit's
validateWebhook authenticates them; and the Webhooks API's checks of the metadata."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snowfield.api.webhooks.operations import _delivery as render_delivery
from snowfield.formats.ids import ID, NodeID
from snowfield.store import primary, validator_state, webhook_outbox, webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.primary_rows import BlockRows, L1Change, StakerRow, TxRow, UtxoRow
from snowfield.store.validator_state import L1Validator
from snowfield.store.webhooks import WebhookRow
from snowfield.webhooks.policy import UrlPolicy, networks
from snowfield.webhooks.worker import Worker, WorkerConfig
from tests.api.conftest import api_client, assert_error, assert_matches
from tests.clients.chainkit import Call, drive
from tests.webhooks.receiver import receiver, validate

P = "11111111111111111111111111111111LpoYY"
N1, N2, N3, N4 = (str(NodeID(bytes([n]) * 20)) for n in (1, 2, 3, 4))
S1 = str(ID(bytes([9]) * 32))
V1, V2, V3 = (str(ID(bytes([n]) * 32)) for n in (21, 22, 23))
LOOPBACK = UrlPolicy(allow=networks(["127.0.0.0/8"]))
HEADER = "x-service-api-key"
L1_EVENTS = [
    "l1_validator_balance_increased",
    "l1_validator_disabled",
    "l1_validator_removed",
    "l1_validator_balance_threshold",
]


def _network(db: Database, network_id: int = 1337) -> None:
    primary.record_network(db, primary.PrimaryNetwork(P, network_id, "custom", None, None, "A"))


def _hook(db: Database, owner: str, url: str, meta: dict[str, Any], net: str = "fuji") -> str:
    draft = WebhookRow(
        "", owner, "validator_activity", url, "v", "", P, None, net, "active", 0, False, False,
        meta,
    )  # fmt: skip
    webhooks.ensure_secret(db, owner)
    return webhooks.create_webhook(db, draft, ()).id


def _meta(key_type: str, key: str, subs: list[str], **extra: object) -> dict[str, Any]:
    return {
        "keyType": key_type,
        "keys": [key],
        "subEvents": {"validatorActivitySubEvents": subs},
        **extra,
    }


def _block(height: int, txs: list[tuple[str, str]], **rows: Any) -> BlockRows:
    b = BlockRows(height, f"block{height}", f"block{height - 1}", 1_700_000_000 + height)
    b.txs = [TxRow(t, kind, i, "", {}, ()) for i, (t, kind) in enumerate(txs)]
    for name, value in rows.items():
        setattr(b, name, value)
    return b


def _staker(tx: str, kind: str, node: str) -> StakerRow:
    fee = 20_000 if kind != "DELEGATOR" else None  # 2 %
    return StakerRow(tx, kind, node, P, 1_700_000_000, 1_800_000_000, 2_000 * 10**9,
                     ("custom1reward",), ("custom1fee",), fee)  # fmt: skip


def _reward(staking_tx: str) -> UtxoRow:
    return UtxoRow("rewardutxo", staking_tx, 0, "A", 7_000, ("custom1reward",), 1, 0, None, False,
                   P, P, "", "VALIDATOR")  # fmt: skip


def _observe(db: Database, *validators: tuple[str, str, int, int, int]) -> None:
    seen = [
        L1Validator(v, S1, node, 10, balance, 0, "", {}, {}, height)
        for v, node, balance, height, _ in validators
    ]
    validator_state.record(db, P, [], seen, None)


def _deliver(db: Database) -> None:
    async def once() -> None:
        worker = Worker(db, policy=LOOPBACK, config=WorkerConfig())
        try:
            while await worker.run_once():
                pass
        finally:
            await worker.close()

    asyncio.run(once())


def _events(bodies: list[Any], hook: str) -> list[tuple[str, str]]:
    return [
        (b["event"]["subEventType"], b["event"]["blockNumber"])
        for b in bodies
        if b["webhookId"] == hook
    ]


def test_each_sub_event_reaches_the_webhooks_it_matches(db: Database) -> None:
    _network(db)
    key, _ = create_key(db, "owner")
    with receiver() as rx:
        staking = _hook(db, key.id, rx.url, _meta("nodeId", N1, ["validator_stake",
                        "delegator_stake", "reward_distribution"]))  # fmt: skip
        l1 = _hook(db, key.id, rx.url, _meta("subnetId", S1, L1_EVENTS,
                   l1ValidatorFeeBalanceThreshold="500"))  # fmt: skip
        narrowed = _hook(db, key.id, rx.url, _meta("nodeId", N1, ["validator_stake"],
                         subnetIds=[S1]))  # fmt: skip
        other_net = _hook(db, key.id, rx.url, _meta("nodeId", N1, ["validator_stake"]), "mainnet")
        only_n3 = _hook(db, key.id, rx.url, _meta("subnetId", S1, L1_EVENTS, nodeIds=[N3],
                        l1ValidatorFeeBalanceThreshold="1"))  # fmt: skip
        stake = [("vtx", "AddPermissionlessValidatorTx"), ("dtx", "AddPermissionlessDelegatorTx")]
        blocks = [
            _block(
                1, stake, stakers=[_staker("vtx", "VALIDATOR", N1), _staker("dtx", "DELEGATOR", N1)]
            ),
            _block(
                2,
                [("conv", "ConvertSubnetToL1Tx")],
                l1_changes=[L1Change("conv", 0, "register", V1, N2, S1, 100, 10**9)],
            ),
            _block(
                3,
                [("inc", "IncreaseL1ValidatorBalanceTx"), ("w50", "SetL1ValidatorWeightTx")],
                l1_changes=[
                    L1Change("inc", 0, "increase", V1, balance=5),
                    L1Change("w50", 1, "weight", V1, weight=50),
                ],
            ),
        ]
        primary.write_blocks(db, P, blocks, 4)
        _observe(db, (V1, N2, 1000, 3, 0), (V3, N4, 1000, 3, 0))
        blocks = [
            _block(4, [("dis", "DisableL1ValidatorTx")],
                   l1_changes=[L1Change("dis", 0, "disable", V1)]),
            _block(5, [("reg", "RegisterL1ValidatorTx")],
                   l1_changes=[L1Change("reg", 0, "register", V2, N3, S1, 7, 10**9)]),
            _block(6, [("w0", "SetL1ValidatorWeightTx")],
                   l1_changes=[L1Change("w0", 0, "weight", V2, weight=0)]),
            _block(7, [], option="commit"),
        ]  # fmt: skip
        primary.write_blocks(db, P, blocks, 8, [(7, _reward("vtx"))])
        # V1's balance went with its disabling (no second disabled event); V3's falls below
        # the threshold, then further (no second threshold event), then runs out.
        _observe(db, (V1, N2, 0, 7, 0), (V3, N4, 400, 7, 0))
        _observe(db, (V3, N4, 300, 8, 0))
        _observe(db, (V3, N4, 0, 9, 0))
        _deliver(db)
        bodies = rx.bodies()
        secret = webhooks.shared_secret(db, key.id)
        assert secret is not None
        verdicts = validate(secret, rx.received)
        forged = validate("not-the-secret", rx.received[:1])
    assert _events(bodies, staking) == [
        ("validator_stake", "1"),
        ("delegator_stake", "1"),
        ("reward_distribution", "7"),
    ]
    assert _events(bodies, l1) == [
        ("l1_validator_balance_increased", "3"),
        ("l1_validator_disabled", "4"),
        ("l1_validator_removed", "6"),
        ("l1_validator_balance_threshold", "7"),
        ("l1_validator_disabled", "9"),
    ]
    assert _events(bodies, only_n3) == [("l1_validator_removed", "6")]
    assert _events(bodies, narrowed) == [] and _events(bodies, other_net) == []
    assert len(bodies) == 9  # each once, to its webhook
    # The client authenticates every delivery; its 0.3.13 models know only address_activity
    # payloads, so it then reports no schema for ours (never an authentication failure).
    assert {v.get("name") for v in verdicts} == {"SDKValidationError"}, verdicts
    assert all("No matching schema" in v["message"] for v in verdicts)
    assert forged[0]["name"] == "WebhookAuthenticationError"
    by_kind = {(b["webhookId"], b["event"]["subEventType"]): b for b in bodies}
    stake_body = by_kind[(staking, "validator_stake")]
    assert stake_body["eventType"] == "validator_activity"
    assert stake_body["event"]["staker"]["delegationFee"] == "2.0000"
    assert stake_body["event"]["transaction"]["txHash"] == "vtx"
    reward = by_kind[(staking, "reward_distribution")]["event"]["reward"]
    assert reward["amount"] == "7000" and reward["utxos"][0]["rewardType"] == "VALIDATOR"
    removed = by_kind[(l1, "l1_validator_removed")]["event"]["l1ValidatorDetails"]
    assert removed == {"validationId": V2, "nodeId": N3, "subnetId": S1, "weight": 0,
                       "remainingBalance": 0}  # fmt: skip
    threshold = by_kind[(l1, "l1_validator_balance_threshold")]["event"]
    assert threshold["threshold"] == "500"
    assert threshold["l1ValidatorDetails"]["remainingBalance"] == 400
    disabled = [
        b["event"]
        for b in bodies
        if b["webhookId"] == l1 and b["event"]["subEventType"] == "l1_validator_disabled"
    ]
    assert disabled[0]["txHash"] == "dis" and "reason" not in disabled[0]
    assert disabled[1]["reason"] == "balance ran out" and "txHash" not in disabled[1]
    assert disabled[1]["l1ValidatorDetails"]["validationId"] == V3
    # The log shows them under the P-Chain.
    page = webhook_outbox.deliveries(db, l1, None, 10)
    assert {d.state for d in page.items} == {"delivered"}
    hook = webhooks.webhook_by_id(db, l1)
    assert hook is not None
    assert {render_delivery(hook, d)["chainId"] for d in page.items} == {P}
    # Written again (a batch retried after a crash): nothing new, under the same ids.
    before = len(webhook_outbox.deliveries(db, staking, None, 10).items)
    primary.write_blocks(db, P, blocks, 8, [(7, _reward("vtx"))])
    assert len(webhook_outbox.deliveries(db, staking, None, 10).items) == before


# -- the API ------------------------------------------------------------------------------------


@pytest.fixture
def served(db: Database) -> Iterator[tuple[str, str]]:
    _network(db)
    _, secret = create_key(db, "owner")
    with api_client(db) as client:
        yield str(client.base_url), secret


def _body(**metadata: object) -> dict[str, Any]:
    return {
        "eventType": "validator_activity",
        "url": "https://example.com/hook",
        "network": "fuji",
        "metadata": {**_meta("nodeId", N1, ["validator_stake"]), **metadata},
    }


def test_the_client_creates_and_reads_a_validator_webhook(served: tuple[str, str]) -> None:
    base, key = served
    request = _body(nodeIds=[N1], subnetIds=[S1])
    request["metadata"]["subEvents"]["validatorActivitySubEvents"] += L1_EVENTS
    request["metadata"]["l1ValidatorFeeBalanceThreshold"] = "1000000000"
    created, listed = drive(
        [Call("webhooks.create", request), Call("webhooks.list", {}, "all")],
        data=base,
        api_key=key,
    )
    made = created.unwrap()
    assert made["eventType"] == "validator_activity" and made["chainId"] == P
    assert made["metadata"]["keys"] == [N1] and made["metadata"]["subnetIds"] == [S1]
    assert made["metadata"]["l1ValidatorFeeBalanceThreshold"] == "1000000000"
    assert [w["id"] for p in listed.all_pages() for w in p["webhooks"]] == [made["id"]]
    got = httpx.get(f"{base}/v1/webhooks/{made['id']}", headers={HEADER: key})
    assert_matches(got.json(), "WebhookResponse")
    listed_body = httpx.get(f"{base}/v1/webhooks", headers={HEADER: key}).json()
    assert_matches(listed_body, "ListWebhooksResponse")
    assert got.json()["metadata"] == made["metadata"]
    path = f"{base}/v1/webhooks/{made['id']}/addresses"
    refused = httpx.patch(path, json={"addresses": ["0x" + "11" * 20]}, headers={HEADER: key})
    assert_error(refused, 400, "validator_activity")


@pytest.mark.parametrize(
    ("change", "mentions"),
    [
        ({"network": "testnet"}, "network"),
        ({"network": "mainnet"}, "not indexed"),
        ({"metadata": {"keyType": "address", "keys": [N1]}}, "keyType"),
        ({"metadata": _meta("nodeId", "NodeID-nope", ["validator_stake"])}, "keys"),
        ({"metadata": _meta("subnetId", N1, ["validator_stake"])}, "keys"),
        ({"metadata": {**_meta("nodeId", N1, ["validator_stake"]), "keys": [N1, N2]}}, "one key"),
        ({"metadata": _meta("nodeId", N1, [])}, "subEvents"),
        ({"metadata": _meta("nodeId", N1, ["balance_change"])}, "subEvents"),
        ({"metadata": _meta("nodeId", N1, ["l1_validator_balance_threshold"])}, "Threshold"),
        (
            {
                "metadata": _meta(
                    "nodeId", N1, ["validator_stake"], l1ValidatorFeeBalanceThreshold="-1"
                )
            },
            "Threshold",
        ),
        ({"metadata": _meta("nodeId", N1, ["validator_stake"], nodeIds=[S1])}, "nodeIds"),
        ({"metadata": _meta("nodeId", N1, ["validator_stake"], subnetIds="x")}, "subnetIds"),
        (
            {
                "metadata": _meta(
                    "nodeId", N1, ["validator_stake"], eventSignatures=["0x" + "a" * 64]
                )
            },
            "eventSignatures",
        ),
    ],
)
def test_bad_validator_metadata_answers_400(
    served: tuple[str, str], change: dict[str, Any], mentions: str
) -> None:
    base, key = served
    body = {**_body(), **change}
    assert_error(httpx.post(f"{base}/v1/webhooks", json=body, headers={HEADER: key}), 400, mentions)
