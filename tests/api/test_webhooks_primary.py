"""primary_network_address_activity webhooks through the Webhooks API: the official client
creates, reads, lists, changes the addresses of and deactivates one; every bad field of the
request answers 400 naming it. Deliveries: tests/webhooks/test_primary.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snowfield.formats.bech32 import format_address
from snowfield.store import primary
from snowfield.store.keys import create_key
from snowfield.testing import open_database
from tests.api.conftest import ALICE, api_client, assert_error, assert_matches
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds, _url

HEADER = "x-service-api-key"
P_CHAIN = "11111111111111111111111111111111LpoYY"
X_CHAIN = "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
NET = primary.PrimaryNetwork(P_CHAIN, 12345, "local", X_CHAIN, None, "AVAX" + "1" * 45)
ONE, TWO, THREE = (format_address("P", "local", bytes([n]) * 20) for n in (1, 2, 3))
FUJI = format_address("P", "fuji", bytes([4]) * 20)


@pytest.fixture(scope="module", params=_db_kinds())
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """The server's base URL and an API key, over a store that indexes a local network."""
    with open_database(_url(request.param, tmp_path_factory.mktemp("whpn"))) as db:
        primary.record_network(db, NET)
        _, key = create_key(db, "primary webhooks")
        with api_client(db) as client:
            yield str(client.base_url), key


def _body(**extra: Any) -> dict[str, Any]:
    metadata = {
        "keyType": "addresses",
        "keys": [ONE],
        "subEvents": {"addressActivitySubEvents": ["balance_change", "balance_threshold"]},
        "balanceThresholdFilter": {"balanceType": "unlockedUnstaked", "balanceThreshold": "5"},
    }
    body = {
        "eventType": "primary_network_address_activity",
        "url": "https://example.com/p",
        "network": "fuji",
        "chainId": P_CHAIN,
        "metadata": metadata,
    }
    for name, value in extra.items():  # None: leave the field out
        target: dict[str, Any] = metadata if name in metadata or name == "eventSignatures" else body
        target[name] = value
        if value is None:
            del target[name]
    return body


def test_the_client_drives_a_primary_network_webhook(served: tuple[str, str]) -> None:
    base, key = served
    made = httpx.post(f"{base}/v1/webhooks", json=_body(), headers={HEADER: key})
    assert made.status_code == 201, made.text
    assert_matches(made.json(), "WebhookResponse")
    hook_id = made.json()["id"]
    # The client (0.3.13) models the address operations' answer as address_activity's only:
    # over plain HTTP, the answer is the webhook as GET renders it.
    path = f"{base}/v1/webhooks/{hook_id}/addresses"
    change = {"addresses": [TWO, THREE[2:]]}  # with or without P-
    added = httpx.patch(path, json=change, headers={HEADER: key})
    assert added.status_code == 200, added.text
    assert_matches(added.json(), "WebhookResponse")
    assert added.json()["metadata"]["keys"] == sorted(a[2:] for a in (ONE, TWO, THREE))
    results = drive(
        [
            Call(
                "webhooks.create",
                _body(
                    name="rewards",
                    chainId="p-chain",
                    subEvents={"addressActivitySubEvents": ["reward_distribution"]},
                    balanceThresholdFilter=None,
                ),
            ),
            Call("webhooks.get", {"id": hook_id}),
            Call("webhooks.list", {"pageSize": 1}, "all"),
            Call("webhooks.update", {"id": hook_id, "updateWebhookRequest": {"name": "renamed"}}),
            Call("webhooks.addresses.list", {"id": hook_id}, "all"),
            Call("webhooks.deactivate", {"id": hook_id}),
        ],
        data=base,
        api_key=key,
    )
    created, got, updated, gone = (results[i].unwrap() for i in (0, 1, 3, 5))
    listed, addresses = results[2].all_pages(), results[4].all_pages()
    assert created["chainId"] == "p-chain" and created["eventType"] == (
        "primary_network_address_activity"
    )
    assert "balanceThresholdFilter" not in created["metadata"]
    assert created["metadata"]["subEvents"] == {"addressActivitySubEvents": ["reward_distribution"]}
    assert got["metadata"] == {
        "keyType": "addresses",
        "keys": sorted(a[2:] for a in (ONE, TWO, THREE)),
        "subEvents": {"addressActivitySubEvents": ["balance_change", "balance_threshold"]},
        "balanceThresholdFilter": {"balanceType": "unlockedUnstaked", "balanceThreshold": "5"},
    }
    assert "includeLogs" not in got and got["chainId"] == P_CHAIN
    ids = {w["id"] for page in listed for w in page["webhooks"]}
    assert {hook_id, created["id"]} <= ids
    assert updated["name"] == "renamed"
    assert [a for page in addresses for a in page["addresses"]] == sorted(
        a[2:] for a in (ONE, TWO, THREE)
    )
    assert gone["status"] == "inactive"
    removed = httpx.request("DELETE", path, json={"addresses": [ONE]}, headers={HEADER: key})
    assert removed.status_code == 200, removed.text
    assert removed.json()["metadata"]["keys"] == sorted(a[2:] for a in (TWO, THREE))


@pytest.mark.parametrize(
    ("extra", "mentions"),
    [
        ({"network": None}, "network"),
        ({"network": "devnet"}, "network"),
        ({"network": "mainnet"}, "not indexed"),
        ({"chainId": X_CHAIN}, "balanceType"),  # unlockedUnstaked is the P-Chain's
        ({"chainId": "43114"}, "chainId"),
        ({"chainId": None}, "chainId"),
        ({"keyType": "nodeId"}, "keyType"),
        ({"keys": []}, "keys"),
        ({"keys": [ALICE]}, "keys"),
        ({"keys": [FUJI]}, "this network"),
        ({"keys": ["P-local1notbech32"]}, "keys"),
        ({"keys": [7]}, "keys"),
        ({"subEvents": {"addressActivitySubEvents": ["validator_stake"]}}, "subEvents"),
        ({"subEvents": {"addressActivitySubEvents": []}}, "subEvents"),
        ({"subEvents": ["balance_change"]}, "subEvents"),
        ({"balanceThresholdFilter": None}, "balanceThresholdFilter"),
        (
            {
                "balanceThresholdFilter": {
                    "balanceType": "atomicMemoryLocked",
                    "balanceThreshold": "1",
                }
            },
            "balanceType",
        ),
        (
            {"balanceThresholdFilter": {"balanceType": "lockedStaked", "balanceThreshold": "-1"}},
            "balanceThreshold",
        ),
        (
            {"balanceThresholdFilter": {"balanceType": "lockedStaked", "balanceThreshold": 5}},
            "balanceThreshold",
        ),
        (
            {
                "balanceThresholdFilter": {
                    "balanceType": "lockedStaked",
                    "balanceThreshold": str(2**64),
                }
            },
            "balanceThreshold",
        ),
        ({"eventSignatures": ["0x" + "ab" * 32]}, "eventSignatures"),
        ({"includeLogs": True}, "includeLogs"),
        ({"metadata": None}, "metadata"),
        ({"url": "ftp://x"}, "url"),
    ],
)
def test_bad_bodies_answer_400(
    served: tuple[str, str], extra: dict[str, Any], mentions: str
) -> None:
    base, key = served
    body = _body(**extra)
    answer = httpx.post(f"{base}/v1/webhooks", json=body, headers={HEADER: key})
    assert_error(answer, 400, mentions)


def test_bad_changes_answer_400(served: tuple[str, str]) -> None:
    base, key = served
    hook_id = httpx.post(f"{base}/v1/webhooks", json=_body(), headers={HEADER: key}).json()["id"]
    path = f"{base}/v1/webhooks/{hook_id}"
    for addresses in ([ALICE], [FUJI], "x"):
        answer = httpx.patch(
            f"{path}/addresses", json={"addresses": addresses}, headers={HEADER: key}
        )
        assert_error(answer, 400, "addresses")
    assert_error(
        httpx.patch(path, json={"includeLogs": True}, headers={HEADER: key}), 400, "includeLogs"
    )
    assert httpx.get(path, headers={HEADER: key}).json()["metadata"]["keys"] == [ONE[2:]]


def test_the_client_creates_an_x_chain_webhook(served: tuple[str, str]) -> None:
    base, key = served
    x_keys = [format_address("X", "local", bytes([5]) * 20)]
    threshold = {"balanceType": "locked", "balanceThreshold": "7"}
    (made,) = drive(
        [
            Call(
                "webhooks.create",
                _body(chainId="x-chain", keys=x_keys, balanceThresholdFilter=threshold),
            )
        ],
        data=base,
        api_key=key,
    )
    got = made.unwrap()
    assert got["chainId"] == "x-chain" and got["metadata"]["keys"] == [x_keys[0][2:]]
    assert got["metadata"]["balanceThresholdFilter"] == threshold
    by_id = httpx.post(
        f"{base}/v1/webhooks",
        json=_body(chainId=X_CHAIN, keys=x_keys, balanceThresholdFilter=threshold),
        headers={HEADER: key},
    )
    assert by_id.status_code == 201, by_id.text
    assert by_id.json()["chainId"] == X_CHAIN
