"""The P-Chain's balances, UTXOs, last activity and transactions by address over the devnet's
demo traffic (staking, a subnet and L1, X→P export and import, X→C and C→P exports), indexed
over the public interfaces: every answer equals what the node says (platform.getBalance,
getStake, getUTXOs, getTx), on SQLite and on PostgreSQL, and the official client takes them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.primary.addressing import FUJI_C, FUJI_X
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address, format_bech32, hrp_for_network, parse_bech32
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.components import UTXO
from snowfield.testing import RunningNode, open_database, serve_asgi, serve_devnet
from snowfield.workload.atomic_demo import run_atomic_demo
from snowfield.workload.platform_demo import PlatformDemoReport, demo_secret, run_platform_demo
from snowfield.workload.x_demo import run_x_demo
from tests.api.conftest import assert_error, assert_matches
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary
from tests.node.test_node_apis import service

Indexed = tuple[RunningNode, str, PlatformDemoReport, list[str]]
BASE = "/v1/networks/testnet/blockchains/p-chain"


def _p(devnet: RunningNode, method: str, params: dict[str, Any] | None = None) -> Any:
    reply = service(devnet.base + "/ext/bc/P", method, params or {})
    assert "error" not in reply, reply
    return reply["result"]


Demo = tuple[RunningNode, PlatformDemoReport, list[str]]


@pytest.fixture(scope="module")
def demo() -> Iterator[Demo]:
    """The devnet with its traffic, built once for both databases."""
    with serve_devnet(validators=2) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        secret = demo_secret(keys)
        report = asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        # X→P export imported on P (round 1), then X→C (round 2); a C→P export left unimported.
        asyncio.run(
            run_x_demo(
                devnet.base,
                [secret, *keys[:2]],
                rounds=2,
                interval=0,
                stop=None,
                log=lambda _line: None,
            )
        )
        asyncio.run(
            run_atomic_demo(
                devnet.base, secret, rounds=1, interval=0, stop=None, log=lambda _line: None
            )
        )
        network_id = int(
            service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]["networkID"]
        )
        hrp = hrp_for_network(network_id)
        # The demo wallet and the rewards owner, then the genesis stakers' owners (who hold
        # unspent genesis allocations: the indexer asks platform.getUTXOs for them).
        wallet = format_address("P", hrp, ShortID.from_public_key(public_key_of(secret)).raw)
        owners = [wallet, report.rewards_address]
        # Genesis stakers' stake owners: staked AVAX to hold against platform.getStake.
        validators = _p(devnet, "platform.getCurrentValidators")["validators"]
        owners += sorted(
            {
                a
                for v in validators
                for a in (v.get("validationRewardOwner") or {}).get("addresses", ())
            }
            - set(owners)
        )
        yield devnet, report, owners


@pytest.fixture(scope="module", params=_db_kinds())
def indexed(
    request: pytest.FixtureRequest, demo: Demo, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    devnet, report, owners = demo
    with open_database(_url(request.param, tmp_path_factory.mktemp("px"))) as db:
        asyncio.run(sync_primary(db, devnet.base))
        with serve_asgi(create_data_app(db)) as api:
            yield devnet, api, report, owners


def _pages(
    url: str, key: str, params: dict[str, Any], schema: str, post: str | None = None
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token = None
    for _ in range(200):
        query = {**params, **({"pageToken": token} if token else {})}
        if post is None:
            got = httpx.get(url, params=query)
        else:
            got = httpx.post(url, params=query, json={"addresses": post})
        assert got.status_code == 200, got.text
        body = got.json()
        assert_matches(body, schema)
        items += body[key]
        token = body.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("paging did not end")


def _total(entries: list[dict[str, Any]]) -> int:
    return sum(int(e["amount"]) for e in entries)


def test_balances_equal_get_balance_and_get_stake(indexed: Indexed) -> None:
    devnet, api, _, owners = indexed
    staked_somewhere = False
    for address in owners:
        got = httpx.get(f"{api}{BASE}/balances", params={"addresses": address})
        assert got.status_code == 200, got.text
        body = got.json()
        assert_matches(body, "ListPChainBalancesResponse")
        b = body["balances"]
        stake = _p(devnet, "platform.getStake", {"addresses": [address]})
        staked = sum(_total(b[k]) for k in ("unlockedStaked", "lockedStaked", "pendingStaked"))
        assert staked == int(stake["staked"]), address
        staked_somewhere |= staked > 0
        node = _p(devnet, "platform.getBalance", {"addresses": [address]})
        assert _total(b["unlockedUnstaked"]) == int(node["unlocked"]), address
        assert _total(b["lockedStakeable"]) == int(node["lockedStakeable"]), address
        assert _total(b["lockedPlatform"]) == int(node["lockedNotStakeable"]), address
        held = ("unlockedUnstaked", "lockedStakeable", "lockedPlatform")
        assert sum(e["utxoCount"] for k in held for e in b[k]) == len(node["utxoIDs"] or ())
    assert staked_somewhere


def test_balances_at_a_time_exclude_what_came_after(indexed: Indexed) -> None:
    _, api, _, owners = indexed
    wallet = owners[0]
    txs = _pages(
        f"{api}{BASE}/transactions",
        "transactions",
        {"addresses": wallet, "sortOrder": "asc", "pageSize": 100},
        "ListPChainTransactionsResponse",
    )
    first = txs[0]["blockTimestamp"]
    before = httpx.get(
        f"{api}{BASE}/balances", params={"addresses": wallet, "blockTimestamp": first - 1}
    ).json()["balances"]
    # Before its first tx the wallet held only its genesis allocation, which no indexed tx made.
    assert all(v == [] for v in before.values())
    at_first = httpx.get(
        f"{api}{BASE}/balances", params={"addresses": wallet, "blockTimestamp": first}
    ).json()["balances"]
    created = {
        u["utxoId"]: int(u["amount"])
        for t in txs
        if t["blockTimestamp"] <= first
        for u in t["emittedUtxos"]
        if wallet[2:] in u["addresses"]
    }
    held = sum(_total(v) for v in at_first.values())
    assert 0 < held <= sum(created.values())


def _node_utxos(devnet: RunningNode, address: str) -> set[str]:
    reply = _p(
        devnet, "platform.getUTXOs", {"addresses": [address], "encoding": "hex", "limit": 1024}
    )
    return {str(UTXO.decode(decode_hex(u)).utxo_id.input_id) for u in reply["utxos"]}


def test_utxos_equal_get_utxos_across_an_export_and_import(indexed: Indexed) -> None:
    devnet, api, _, owners = indexed
    for address in owners:  # genesis allocations among them (store/p_genesis.py)
        listed = _pages(
            f"{api}{BASE}/utxos",
            "utxos",
            {"addresses": address, "pageSize": 2},
            "ListPChainUtxosResponse",
        )
        # The node's UTXO set leaves out stake still locked in a current staker.
        staked = {u["utxoId"] for u in listed if u["staked"]}
        node = _node_utxos(devnet, address)
        assert {u["utxoId"] for u in listed} - staked == node - staked, address
        posted = _pages(
            f"{api}{BASE}/utxos", "utxos", {"pageSize": 3}, "ListPChainUtxosResponse", post=address
        )
        assert [u["utxoId"] for u in posted] == [u["utxoId"] for u in listed]
        for u in listed:
            assert "consumingTxHash" not in u and address[2:] in u["addresses"]
    # The key the X demo imported with: its import's UTXO is on P, the X-side one consumed.
    wallet = owners[0]
    txs = _pages(
        f"{api}{BASE}/transactions",
        "transactions",
        {"addresses": wallet, "txTypes": "ImportTx"},
        "ListPChainTransactionsResponse",
    )
    assert txs, "the X demo's import is indexed"
    for tx in txs:
        assert tx["sourceChain"] != "11111111111111111111111111111111LpoYY"
        emitted = {u["utxoId"] for u in tx["emittedUtxos"]}
        assert emitted and emitted <= _node_utxos(devnet, wallet) | _spent(api, wallet)


def _spent(api: str, address: str) -> set[str]:
    listed = _pages(
        f"{api}{BASE}/utxos",
        "utxos",
        {"addresses": address, "includeSpent": "true", "pageSize": 100},
        "ListPChainUtxosResponse",
    )
    return {u["utxoId"] for u in listed if "consumingTxHash" in u}


def test_utxo_filters_and_orders(indexed: Indexed) -> None:
    _, api, _, owners = indexed
    wallet = owners[0]
    every = _pages(
        f"{api}{BASE}/utxos",
        "utxos",
        {"addresses": wallet, "includeSpent": "true", "pageSize": 100, "sortOrder": "asc"},
        "ListPChainUtxosResponse",
    )
    unspent = _pages(
        f"{api}{BASE}/utxos",
        "utxos",
        {"addresses": wallet, "pageSize": 100},
        "ListPChainUtxosResponse",
    )
    assert len(every) > len(unspent) > 0
    by_amount = _pages(
        f"{api}{BASE}/utxos",
        "utxos",
        {
            "addresses": wallet,
            "sortBy": "amount",
            "sortOrder": "desc",
            "includeSpent": "true",
            "pageSize": 2,
        },
        "ListPChainUtxosResponse",
    )
    amounts = [int(u["amount"]) for u in by_amount]
    assert amounts == sorted(amounts, reverse=True) and len(by_amount) == len(every)
    floor = sorted(amounts)[len(amounts) // 2]
    big = _pages(
        f"{api}{BASE}/utxos",
        "utxos",
        {"addresses": wallet, "minUtxoAmount": floor, "includeSpent": "true"},
        "ListPChainUtxosResponse",
    )
    assert sorted(int(u["amount"]) for u in big) == sorted(a for a in amounts if a >= floor)
    times = [u["blockTimestamp"] for u in every]
    assert times == sorted(times)
    none = httpx.get(
        f"{api}{BASE}/utxos",
        params={
            "addresses": wallet,
            "assetId": "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
        },
    )
    assert none.json()["utxos"] == []


def test_transactions_render_what_get_tx_holds(indexed: Indexed) -> None:
    devnet, api, _, _ = indexed
    latest = _pages(
        f"{api}{BASE}/transactions",
        "transactions",
        {"pageSize": 7, "sortOrder": "desc"},
        "ListPChainTransactionsResponse",
    )
    oldest = _pages(
        f"{api}{BASE}/transactions",
        "transactions",
        {"pageSize": 5, "sortOrder": "asc"},
        "ListPChainTransactionsResponse",
    )
    assert [t["txHash"] for t in latest] == [t["txHash"] for t in reversed(oldest)]
    kinds = {t["txType"] for t in latest}
    assert {"AddPermissionlessValidatorTx", "ImportTx", "BaseTx", "CreateSubnetTx"} <= kinds
    for listed in latest:
        got = httpx.get(f"{api}{BASE}/transactions/{listed['txHash']}")
        assert got.status_code == 200, got.text
        one = got.json()
        assert_matches(one, "PChainTransaction")
        assert one == listed
        node = _p(devnet, "platform.getTx", {"txID": listed["txHash"], "encoding": "json"})["tx"]
        unsigned = node["unsignedTx"]
        assert one["txType"] == type_of(unsigned)
        check_fields(one, unsigned)
        outs = unsigned.get("outputs") or []
        ins = unsigned.get("inputs") or []
        own = [
            u
            for u in one["emittedUtxos"]
            if not u["staked"] and u["createdOnChainId"] == u["consumedOnChainId"]
        ]
        assert (
            sorted(int(o["output"]["amount"]) for o in outs)
            == sorted(int(u["amount"]) for u in own)
            or one["txType"] == "ExportTx"
        )
        consumed_here = [
            u for u in one["consumedUtxos"] if u["createdOnChainId"] == u["consumedOnChainId"]
        ]
        assert sorted(int(i["input"]["amount"]) for i in ins) == sorted(
            int(u["amount"]) for u in consumed_here
        )
        memo = bytes.fromhex(unsigned.get("memo", "0x")[2:]).decode("utf-8", "replace")
        assert one.get("memo", "") == memo
    start, end = latest[-1]["blockTimestamp"], latest[0]["blockTimestamp"]
    ranged = _pages(
        f"{api}{BASE}/transactions",
        "transactions",
        {"startTimestamp": start, "endTimestamp": start},
        "ListPChainTransactionsResponse",
    )
    assert ranged and all(t["blockTimestamp"] == start for t in ranged)
    assert end >= start


def type_of(unsigned: dict[str, Any]) -> str:
    """The tx type as the node's JSON shows it: by the keys only that type's JSON has."""
    marks = (
        ("shares", "AddPermissionlessValidatorTx"),
        ("rewardsOwner", "AddPermissionlessDelegatorTx"),
        ("sourceChain", "ImportTx"),
        ("destinationChain", "ExportTx"),
        ("chainName", "CreateChainTx"),
        ("owner", "CreateSubnetTx"),
        ("validators", "ConvertSubnetToL1Tx"),
    )
    for key, kind in marks:
        if key in unsigned:
            return kind
    return "RewardValidatorTx" if "networkID" not in unsigned else "BaseTx"


def check_fields(one: dict[str, Any], unsigned: dict[str, Any]) -> None:
    """The type-specific fields our document shows against the node's JSON of the same bytes."""
    stake = unsigned.get("stake") or []
    staked = sum(int(o["output"]["amount"]) for o in stake)
    assert sum(int(a["amount"]) for a in one["amountStaked"]) == staked
    if "sourceChain" in unsigned:
        assert one["sourceChain"] == unsigned["sourceChain"]
        imported = sorted(int(i["input"]["amount"]) for i in unsigned["importedInputs"])
        from_there = [
            u for u in one["consumedUtxos"] if u["createdOnChainId"] != u["consumedOnChainId"]
        ]
        assert sorted(int(u["amount"]) for u in from_there) == imported
    if "subnetID" in unsigned and unsigned["subnetID"] != "11111111111111111111111111111111LpoYY":
        assert one["subnetId"] == unsigned["subnetID"]
    if "validator" in unsigned:
        assert one["nodeId"] == unsigned["validator"]["nodeID"]
        assert one["startTimestamp"] == int(unsigned["validator"]["start"]) or one["startTimestamp"]
        assert one["endTimestamp"] == int(unsigned["validator"]["end"])


def test_last_activity_and_chain_ids(indexed: Indexed) -> None:
    _, api, _, owners = indexed
    wallet = owners[0]
    got = httpx.get(f"{api}{BASE}/lastActivityTimestampByAddresses", params={"addresses": wallet})
    assert got.status_code == 200, got.text
    assert_matches(got.json(), "LastActivityTimestamp")
    posted = httpx.post(f"{api}{BASE}/lastActivityTimestampByAddresses", json={"addresses": wallet})
    assert posted.json() == got.json()
    latest = _pages(
        f"{api}{BASE}/transactions",
        "transactions",
        {"addresses": wallet, "sortOrder": "desc", "pageSize": 1},
        "ListPChainTransactionsResponse",
    )[0]
    assert got.json()["timestamp"] == latest["blockTimestamp"]
    ids = httpx.get(
        f"{api}/v1/networks/testnet/addresses:listChainIds", params={"addresses": wallet}
    )
    assert_matches(ids.json(), "ChainAddressChainIdMapListResponse")
    # The demo wallet also moves AVAX on the X-Chain and exports from the C-Chain (the test
    # network's answer as Fuji's).
    assert ids.json()["addresses"] == [
        {
            "address": wallet[2:],
            "blockchainIds": ["11111111111111111111111111111111LpoYY", FUJI_X, FUJI_C],
        }
    ]


def test_bad_input_answers_the_error_body(indexed: Indexed) -> None:
    _, api, _, owners = indexed
    wallet = owners[0]
    bare = wallet[2:]
    wrong_hrp = format_bech32("avax", parse_bech32(bare)[1])  # a valid mainnet address
    bad_sum = bare[:-1] + ("q" if bare[-1] != "q" else "p")
    for address in (wrong_hrp, bad_sum, "X-" + bare, f"{wallet},X-{bare}", "nonsense"):
        for path in ("balances", "utxos", "transactions", "lastActivityTimestampByAddresses"):
            assert_error(httpx.get(f"{api}{BASE}/{path}", params={"addresses": address}), 400)
    assert_error(httpx.post(f"{api}{BASE}/utxos", json={"addresses": 5}), 400)
    assert_error(
        httpx.get(f"{api}{BASE}/utxos", params={"addresses": wallet, "pageToken": "garbage"}), 400
    )
    assert_error(httpx.get(f"{api}{BASE}/transactions/notanid"), 400)
    assert_error(httpx.get(f"{api}{BASE}/transactions/{'1' * 32}LpoYY"), 404)
    unknown = "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"
    assert_error(httpx.get(f"{api}{BASE}/transactions/{unknown}"), 404)
    assert_error(
        httpx.get(
            f"{api}/v1/networks/mainnet/blockchains/p-chain/balances", params={"addresses": wallet}
        ),
        404,
    )
    assert_error(
        httpx.get(
            f"{api}/v1/networks/testnet/blockchains/2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5/balances",
            params={"addresses": wallet},
        ),
        400,
    )
    assert_error(
        httpx.get(f"{api}{BASE}/utxos", params={"addresses": wallet, "includeSpent": "yes"}), 400
    )
    assert_error(
        httpx.get(f"{api}{BASE}/utxos", params={"addresses": wallet, "pageSize": 101}), 400
    )


def test_the_official_client_takes_every_answer(indexed: Indexed) -> None:
    _, api, _, owners = indexed
    wallet = owners[0]
    p = {"blockchainId": "p-chain"}
    results = drive(
        [
            Call("data.primaryNetwork.balances.listByAddresses", {**p, "addresses": wallet}),
            Call(
                "data.primaryNetwork.utxos.listByAddresses",
                {**p, "addresses": wallet, "pageSize": 2, "includeSpent": True},
                "all",
            ),
            Call(
                "data.primaryNetwork.utxos.listByAddressesV2",
                {**p, "pageSize": 2, "primaryNetworkAddressesBodyDto": {"addresses": wallet}},
                "all",
            ),
            Call(
                "data.primaryNetwork.utxos.getLastActivityTimestampByAddresses",
                {**p, "addresses": wallet},
            ),
            Call(
                "data.primaryNetwork.utxos.getLastActivityTimestampByAddressesV2",
                {**p, "primaryNetworkAddressesBodyDto": {"addresses": wallet}},
            ),
            Call("data.primaryNetwork.getChainIdsForAddresses", {"addresses": wallet}),
            Call(
                "data.primaryNetwork.transactions.listLatest",
                {**p, "addresses": wallet, "pageSize": 3},
                "all",
            ),
            Call(
                "data.primaryNetwork.transactions.listLatest",
                {**p, "pageSize": 4, "txTypes": ["ImportTx", "BaseTx"]},
                "all",
            ),
        ],
        data=api,
    )
    for r in results:
        assert r.ok, r.error
    assert len(results[1].all_pages()) > 1 and len(results[6].all_pages()) > 1
    first = results[6].all_pages()[0]["transactions"][0]["txHash"]
    (one,) = drive([Call("data.primaryNetwork.transactions.get", {**p, "txHash": first})], data=api)
    assert one.unwrap()["txHash"] == first


def test_unspent_genesis_allocations_are_held(indexed: Indexed) -> None:
    """A dev key the demos leave alone on P holds only its genesis allocation: the indexer found
    it with platform.getUTXOs; balances and UTXOs equal the node's, from the genesis time."""
    devnet, api, _, _ = indexed
    hrp = hrp_for_network(
        int(service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]["networkID"])
    )
    key = devnet.node.dev_keys[0].private_key
    address = format_address("P", hrp, ShortID.from_public_key(public_key_of(key)).raw)
    node = _p(devnet, "platform.getBalance", {"addresses": [address]})
    assert int(node["unlocked"]) > 0
    body = httpx.get(f"{api}{BASE}/balances", params={"addresses": address}).json()
    assert_matches(body, "ListPChainBalancesResponse")
    assert _total(body["balances"]["unlockedUnstaked"]) == int(node["unlocked"])
    listed = _pages(
        f"{api}{BASE}/utxos",
        "utxos",
        {"addresses": address, "includeSpent": "true"},
        "ListPChainUtxosResponse",
    )
    assert {u["utxoId"] for u in listed} == _node_utxos(devnet, address)
    genesis = [u for u in listed if u["txHash"] == "11111111111111111111111111111111LpoYY"]
    assert genesis and all(u["blockNumber"] == "0" for u in genesis)
    at = genesis[0]["blockTimestamp"]
    then = httpx.get(
        f"{api}{BASE}/balances", params={"addresses": address, "blockTimestamp": at}
    ).json()["balances"]
    assert _total(then["unlockedUnstaked"]) == sum(int(u["amount"]) for u in genesis)
    before = httpx.get(
        f"{api}{BASE}/balances", params={"addresses": address, "blockTimestamp": at - 1}
    ).json()["balances"]
    assert all(v == [] for v in before.values())
