"""The Webhooks API through the official client (every `webhooks.*` function, paging where it
pages) and over plain HTTP: ownership (401 without a key, 404 for another key's webhook), bad
bodies (400), the delivery log and replay, and the `webhooks` feature of GET /v1/chains."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from snowfield.store import webhook_outbox
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from tests.api.conftest import ALICE, BOB, CAROL, CHAIN, api_client, assert_error, assert_matches
from tests.clients.chainkit import Call, drive

HEADER = "x-service-api-key"


@pytest.fixture(scope="module")
def served(filled: Database) -> Iterator[tuple[str, str, str]]:
    """The server's base URL and two keys' secrets."""
    _, mine = create_key(filled, "webhooks owner")
    _, other = create_key(filled, "someone else")
    with api_client(filled) as client:
        yield str(client.base_url), mine, other


def _create(base: str, key: str, **extra: object) -> httpx.Response:
    body = {
        "eventType": "address_activity",
        "url": "https://example.com/hook",
        "chainId": str(CHAIN),
        "metadata": {"addresses": [ALICE]},
        **extra,
    }
    return httpx.post(f"{base}/v1/webhooks", json=body, headers={HEADER: key})


def test_the_client_drives_every_webhooks_function(served: tuple[str, str, str]) -> None:
    base, key, _ = served
    made = _create(base, key, name="first").json()
    hook_id = made["id"]
    results = drive(
        [
            Call(
                "webhooks.create",
                {
                    "eventType": "address_activity",
                    "url": "https://example.com/second",
                    "chainId": str(CHAIN),
                    "name": "second",
                    "metadata": {"addresses": [BOB], "eventSignatures": ["0x" + "ab" * 32]},
                    "includeLogs": True,
                    "includeInternalTxs": True,
                },
            ),
            Call("webhooks.list", {"pageSize": 1}, "all"),
            Call("webhooks.get", {"id": hook_id}),
            Call(
                "webhooks.update",
                {"id": hook_id, "updateWebhookRequest": {"name": "renamed", "includeLogs": True}},
            ),
            Call(
                "webhooks.addresses.add",
                {"id": hook_id, "addressesChangeRequest": {"addresses": [BOB, CAROL]}},
            ),
            Call("webhooks.addresses.list", {"id": hook_id, "pageSize": 2}, "all"),
            Call(
                "webhooks.addresses.remove",
                {"id": hook_id, "addressesChangeRequest": {"addresses": [BOB]}},
            ),
            Call("webhooks.generateOrRotateSharedSecret"),
            Call("webhooks.getSharedSecret"),
            Call("webhooks.deactivate", {"id": hook_id}),
            Call("webhooks.list", {"status": "inactive"}, "all"),
        ],
        data=base,
        api_key=key,
        chain_id=str(CHAIN),
    )
    created, listed, got, updated, added, addresses, removed, rotated, secret, gone, off = results
    second = created.unwrap()
    assert second["includeLogs"] is True and second["metadata"]["addresses"] == [BOB]
    pages = listed.all_pages()
    ids = [w["id"] for page in pages for w in page["webhooks"]]
    assert hook_id in ids and second["id"] in ids and len(pages) == len(ids)
    assert got.unwrap()["name"] == "first"
    assert updated.unwrap()["name"] == "renamed" and updated.unwrap()["includeLogs"] is True
    assert sorted(added.unwrap()["metadata"]["addresses"]) == sorted([ALICE, BOB, CAROL])
    listed_addresses = [a for p in addresses.all_pages() for a in p["addresses"]]
    assert listed_addresses == sorted([ALICE, BOB, CAROL])
    assert addresses.all_pages()[0]["totalAddresses"] == 3
    assert sorted(removed.unwrap()["metadata"]["addresses"]) == sorted([ALICE, CAROL])
    assert secret.unwrap()["secret"] == rotated.unwrap()["secret"]
    assert gone.unwrap()["status"] == "inactive"
    assert [w["id"] for p in off.all_pages() for w in p["webhooks"]] == [hook_id]


def test_a_webhook_belongs_to_its_key(served: tuple[str, str, str]) -> None:
    base, key, other = served
    hook_id = _create(base, key).json()["id"]
    path = f"{base}/v1/webhooks/{hook_id}"
    assert_error(httpx.get(path), 401)
    assert_error(httpx.get(f"{base}/v1/webhooks"), 401)
    assert_error(httpx.post(f"{base}/v1/webhooks:generateOrRotateSharedSecret"), 401)
    for method in ("GET", "DELETE"):
        assert_error(httpx.request(method, path, headers={HEADER: other}), 404)
    assert_error(httpx.patch(path, json={"name": "x"}, headers={HEADER: other}), 404)
    assert_error(httpx.get(f"{path}/addresses", headers={HEADER: other}), 404)
    assert_error(httpx.get(f"{path}/deliveries", headers={HEADER: other}), 404)
    theirs = httpx.get(f"{base}/v1/webhooks", headers={HEADER: other}).json()["webhooks"]
    assert hook_id not in [w["id"] for w in theirs]
    assert httpx.get(path, headers={HEADER: key}).status_code == 200


@pytest.mark.parametrize(
    ("extra", "mentions"),
    [
        ({"eventType": "nope"}, "eventType"),
        ({"url": "ftp://example.com"}, "url"),
        ({"url": "http://"}, "url"),
        ({"chainId": "999999"}, "chainId"),
        ({"metadata": {"addresses": ["0x12"]}}, "addresses"),
        ({"metadata": {"addresses": [ALICE], "eventSignatures": ["0x1"]}}, "eventSignatures"),
        ({"metadata": "x"}, "metadata"),
        ({"includeLogs": "yes"}, "includeLogs"),
        ({"eventType": "validator_activity"}, "keyType"),  # tests/webhooks/test_validator_activity
    ],
)
def test_bad_bodies_answer_400(
    served: tuple[str, str, str], extra: dict[str, object], mentions: str
) -> None:
    base, key, _ = served
    assert_error(_create(base, key, **extra), 400, mentions)


def test_bad_paging_and_status_answer_400(served: tuple[str, str, str]) -> None:
    base, key, _ = served
    headers = {HEADER: key}
    for params in ({"pageSize": 0}, {"pageSize": 101}, {"status": "x"}, {"pageToken": "zz"}):
        assert_error(httpx.get(f"{base}/v1/webhooks", params=params, headers=headers), 400)


def test_the_delivery_log_and_replay(served: tuple[str, str, str], filled: Database) -> None:
    base, key, _ = served
    hook = _create(base, key).json()
    now = int(time.time() * 1000)
    with filled.transaction() as w:
        webhook_outbox.insert(
            w,
            [
                (
                    f"m{n}",
                    hook["id"],
                    CHAIN,
                    n,
                    "0x" + "00" * 32,
                    0,
                    1,
                    "event",
                    "{}",
                    now,
                    "delivered",
                    1,
                    now,
                    0,
                )
                for n in (1, 2, 3)
            ],
        )
    path = f"{base}/v1/webhooks/{hook['id']}"
    page = httpx.get(f"{path}/deliveries", params={"pageSize": 2}, headers={HEADER: key}).json()
    assert_matches(page, "ListWebhookDeliveriesResponse")
    assert [d["blockNumber"] for d in page["deliveries"]] == ["3", "2"]
    more = httpx.get(
        f"{path}/deliveries",
        params={"pageSize": 2, "pageToken": page["nextPageToken"]},
        headers={HEADER: key},
    ).json()
    assert [d["blockNumber"] for d in more["deliveries"]] == ["1"]
    replayed = httpx.post(f"{path}/replay", json={"fromBlock": 2}, headers={HEADER: key})
    assert replayed.json() == {"queued": 2}
    states = httpx.get(f"{path}/deliveries", headers={HEADER: key}).json()["deliveries"]
    assert [d["status"] for d in states] == ["pending", "pending", "delivered"]
    assert_error(httpx.post(f"{path}/replay", json={"fromBlock": -1}, headers={HEADER: key}), 400)


def test_chains_offer_webhooks_only_while_deliveries_work(
    served: tuple[str, str, str], filled: Database
) -> None:
    base, _, _ = served

    def offering() -> list[str]:
        found = httpx.get(f"{base}/v1/chains", params={"feature": "webhooks"}).json()
        return [c["chainId"] for c in found["chains"]]

    webhook_outbox.heartbeat(filled, int(time.time() * 1000) - 60_000)  # a worker, gone
    assert offering() == []
    webhook_outbox.heartbeat(filled, int(time.time() * 1000))
    # The indexed chain (a checkpoint) while a worker runs; never the configured, unindexed one.
    assert offering() == [str(CHAIN)]
