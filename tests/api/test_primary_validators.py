"""Blocks, validators, delegators, L1 validators, paid rewards and the network's objects over
the devnet's P-Chain demo traffic (staking, a delegation, a subnet and its chain, the L1
conversion with its validator, a day later the rewards), indexed over the public interfaces
into SQLite (and PostgreSQL when SNOWFIELD_TEST_PG is set): every answer equals the node's."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterator
from typing import Any

import httpx
import jsonschema_rs
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.site import ExplorerConfig
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.platform.components import UTXO
from snowfield.store import primary, validator_documents
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.validator_queries import StakerFilter
from snowfield.store.validator_schema import BUMP_GENERATION
from snowfield.store.writes import upsert_chain
from snowfield.testing import RunningNode, database_urls, open_database, serve_asgi, serve_devnet
from snowfield.workload.platform_demo import PlatformDemoReport, demo_secret, run_platform_demo
from tests.api.conftest import DOCUMENT, assert_error, assert_matches, assert_no_null
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds
from tests.explorer.conftest import browse, one, shown
from tests.helpers import sync_primary
from tests.node.test_node_apis import service

Indexed = tuple[RunningNode, str, PlatformDemoReport, Database]
NET = "/v1/networks/fuji"


def _rpc(devnet: RunningNode, path: str, method: str, params: dict[str, Any] | None = None) -> Any:
    reply = service(devnet.base + path, method, params or {})
    assert "error" not in reply, reply
    return reply["result"]


def _p(devnet: RunningNode, method: str, params: dict[str, Any] | None = None) -> Any:
    return _rpc(devnet, "/ext/bc/P", method, params)


@pytest.fixture(scope="module")
def demo(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RunningNode, PlatformDemoReport]]:
    with serve_devnet(validators=2) as devnet:
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        report = asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        yield devnet, report


@pytest.fixture(scope="module", params=_db_kinds())
def indexed(
    request: pytest.FixtureRequest,
    demo: tuple[RunningNode, PlatformDemoReport],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Indexed]:
    devnet, report = demo
    urls = database_urls(tmp_path_factory.mktemp("validators"))
    with open_database(urls[0] if request.param == "sqlite" else urls[1]) as db:
        asyncio.run(sync_primary(db, devnet.base))
        with serve_asgi(create_data_app(db)) as api:
            yield devnet, api, report, db


def _pages(url: str, key: str, params: dict[str, Any], schema: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token = None
    for _ in range(200):
        got = httpx.get(url, params={**params, **({"pageToken": token} if token else {})})
        assert got.status_code == 200, got.text
        body = got.json()
        _matches(body, schema)
        items += body[key]
        token = body.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("paging did not end")


def _matches(body: Any, schema: str) -> None:
    """assert_matches, but an active validator's geolocation is null (required and nullable in
    the client: no source of it): checked as such and set aside for the no-null check."""
    stripped = copy.deepcopy(body)
    for v in stripped.get("validators", ()):
        if v.get("validationStatus") == "active":
            assert "geolocation" in v and v.pop("geolocation") is None
    assert_no_null(stripped)
    full = {"$ref": f"#/components/schemas/{schema}", "components": DOCUMENT["components"]}
    jsonschema_rs.validator_for(full).validate(body)


def test_blocks_equal_the_index_api_and_getblock(indexed: Indexed) -> None:
    devnet, api, _, _ = indexed
    url = f"{api}{NET}/blockchains/p-chain/blocks"
    listed = _pages(url, "blocks", {"pageSize": 3}, "ListPrimaryNetworkBlocksResponse")
    height = int(_p(devnet, "platform.getHeight")["height"])
    assert [int(b["blockNumber"]) for b in listed] == list(range(height, -1, -1))
    proposers: dict[str, list[str]] = {}
    for b in listed:
        h = int(b["blockNumber"])
        node = _p(devnet, "platform.getBlockByHeight", {"height": h, "encoding": "json"})["block"]
        assert b["blockHash"] == node["id"]
        assert b["parentHash"] == node.get("parentID", b["parentHash"])
        assert b["blockTimestamp"] == node.get("time", b["blockTimestamp"])
        if h > 0:
            txs = [t["id"] for t in node.get("txs") or ([node["tx"]] if "tx" in node else [])]
            assert b["transactions"] == txs and b["txCount"] == len(txs)
        if h == 0:  # the genesis: in no container, unwrapped
            genesis = _p(devnet, "platform.getBlockByHeight", {"height": 0, "encoding": "hex"})
            assert b["blockSizeBytes"] == len(decode_hex(genesis["block"]))
            assert "proposerDetails" not in b
            continue
        container = _rpc(
            devnet, "/ext/index/P/block", "index.getContainerByID",
            {"id": b["proposerDetails"]["proposerId"], "encoding": "hex"},
        )  # fmt: skip
        assert b["blockSizeBytes"] == len(decode_hex(container["bytes"]))
        assert b["proposerDetails"]["proposerId"] == container["id"]
        one = httpx.get(f"{api}{NET}/blockchains/p-chain/blocks/{b['blockHash']}").json()
        assert one == b
        by_proposer = httpx.get(f"{api}{NET}/blockchains/p-chain/blocks/{container['id']}")
        by_height = httpx.get(f"{api}{NET}/blockchains/p-chain/blocks/{h}")
        assert by_proposer.json() == by_height.json() == b
        if "proposerNodeId" in b["proposerDetails"]:
            proposers.setdefault(b["proposerDetails"]["proposerNodeId"], []).append(b["blockHash"])
    assert proposers, "signed blocks name their proposer"
    for node_id, hashes in proposers.items():
        mine = _pages(
            f"{api}{NET}/blockchains/p-chain/nodes/{node_id}/blocks", "blocks", {"pageSize": 2},
            "ListPrimaryNetworkBlocksResponse",
        )  # fmt: skip
        assert [b["blockHash"] for b in mine] == hashes


def _current(devnet: RunningNode) -> dict[str, dict[str, Any]]:
    validators = _p(devnet, "platform.getCurrentValidators")["validators"]
    return {v["txID"]: v for v in validators}


def test_active_validators_equal_get_current_validators(indexed: Indexed) -> None:
    devnet, api, _, _ = indexed
    node = _current(devnet)
    listed = _pages(
        f"{api}{NET}/validators", "validators", {"validationStatus": "active", "pageSize": 1},
        "ListValidatorDetailsResponse",
    )  # fmt: skip
    assert {v["txHash"] for v in listed} == set(node)
    total = sum(int(v["weight"]) for v in node.values())
    for v in listed:
        n = node[v["txHash"]]
        assert (v["nodeId"], v["amountStaked"]) == (n["nodeID"], n["weight"])
        assert (v["startTimestamp"], v["endTimestamp"]) == (int(n["startTime"]), int(n["endTime"]))
        assert float(v["delegationFee"]) == float(n["delegationFee"])
        assert v["uptimePerformance"] == float(n["uptime"])
        assert v["potentialRewards"]["validationRewardAmount"] == n["potentialReward"]
        assert v["blsCredentials"] == n["signer"]
        assert v["delegatorCount"] == int(n["delegatorCount"])
        assert v["amountDelegated"] == n["delegatorWeight"]
        assert v["stakePercentage"] == round(int(n["weight"]) * 100 / total, 4)
        assert v["validatorHealth"]["reachabilityPercent"] == (100.0 if n["connected"] else 0.0)
        capacity = min(5 * int(n["weight"]), 3 * 10**15) - int(n["weight"])
        assert v["delegationCapacity"] == str(max(0, capacity))
        again = _pages(
            f"{api}{NET}/validators/{n['nodeID']}", "validators", {},
            "ListValidatorDetailsResponse",
        )  # fmt: skip
        assert again == [v]


def test_the_demo_validator_and_delegator_completed_with_their_rewards(indexed: Indexed) -> None:
    devnet, api, report, _ = indexed
    validator, delegator = report.txs["addValidator"], report.txs["addDelegator"]

    def paid(tx_id: str) -> list[int]:
        got = _p(devnet, "platform.getRewardUTXOs", {"txID": tx_id, "encoding": "hex"})
        utxos = [UTXO.decode(decode_hex(u)) for u in got["utxos"]]
        amounts = []
        for u in utxos:
            out = u.output
            out = getattr(out, "output", out)  # a stakeable-locked output wraps the transfer
            amounts.append(int(out.amt))
        return amounts

    listed = _pages(
        f"{api}{NET}/validators", "validators", {"validationStatus": "completed", "pageSize": 1},
        "ListValidatorDetailsResponse",
    )  # fmt: skip
    mine = {v["txHash"]: v for v in listed}
    v = mine[validator]
    assert v["nodeId"] == report.node_id and v["delegatorCount"] == 1
    rewards = paid(validator)
    assert int(v["rewards"]["validationRewardAmount"]) == rewards[0]
    assert int(v["rewards"]["delegationRewardAmount"]) == sum(rewards[1:])
    assert v["rewards"]["rewardTxHash"]
    delegators = _pages(
        f"{api}{NET}/delegators", "delegators", {"nodeIds": report.node_id},
        "ListDelegatorDetailsResponse",
    )  # fmt: skip
    assert [d["txHash"] for d in delegators] == [delegator]
    d = delegators[0]
    assert d["delegationStatus"] == "completed" and int(d["netReward"]) == sum(paid(delegator))
    owner = httpx.get(
        f"{api}{NET}/delegators", params={"rewardAddresses": report.rewards_address}
    ).json()["delegators"]
    assert [x["txHash"] for x in owner] == [delegator]
    history = _pages(
        f"{api}{NET}/rewards", "historicalRewards", {"nodeIds": report.node_id, "pageSize": 1},
        "ListHistoricalRewardsResponse",
    )  # fmt: skip
    assert sorted(int(r["reward"]["amount"]) for r in history) == sorted(
        paid(validator) + paid(delegator)
    )
    by_owner = _pages(
        f"{api}{NET}/rewards", "historicalRewards", {"addresses": report.rewards_address},
        "ListHistoricalRewardsResponse",
    )  # fmt: skip
    assert {r["utxoId"] for r in by_owner} == {r["utxoId"] for r in history}


def _raw_pages(url: str, params: dict[str, Any]) -> list[bytes]:
    """Every page's body as sent, through nextPageToken."""
    out: list[bytes] = []
    token = None
    for _ in range(200):
        got = httpx.get(url, params={**params, **({"pageToken": token} if token else {})})
        assert got.status_code == 200, got.text
        out.append(got.content)
        token = got.json().get("nextPageToken")
        if not token:
            return out
    raise AssertionError("paging did not end")


def test_stored_entries_answer_as_the_rows_do(indexed: Indexed) -> None:
    """The pages read from the writer's stored entries (store/validator_documents.py) equal, byte
    for byte, the pages rendered from the rows, for every filter, order and paging the tests
    ask; and after the sync every entry is stored and holds (the stored path is the one read)."""
    _, api, report, db = indexed
    (net,) = primary.networks(db)
    everything = StakerFilter(validator_documents.VALIDATION_KINDS)
    held = validator_documents.page(db, net.pchain, everything, desc=False, after=None,
                                    limit=10_000)  # fmt: skip
    assert held is not None and len(held) > 2
    asked: list[tuple[str, dict[str, Any]]] = [
        (f"{api}{NET}/validators", {}),
        (f"{api}{NET}/validators", {"pageSize": 1}),
        (f"{api}{NET}/validators", {"pageSize": 1, "sortOrder": "desc"}),
        (f"{api}{NET}/validators", {"validationStatus": "active", "pageSize": 1}),
        (f"{api}{NET}/validators", {"validationStatus": "completed", "pageSize": 1}),
        (f"{api}{NET}/validators", {"validationStatus": "pending"}),
        (f"{api}{NET}/validators", {"nodeIds": report.node_id}),
        (f"{api}{NET}/validators", {"minFeePercentage": "2", "maxFeePercentage": "100"}),
        (f"{api}{NET}/validators", {"subnetId": report.subnet_id, "pageSize": 1}),
        (f"{api}{NET}/validators/{report.node_id}", {}),
        (f"{api}{NET}/validators/{report.node_id}", {"validationStatus": "completed"}),
    ]
    stored = [_raw_pages(url, params) for url, params in asked]
    with db.transaction() as w:  # every entry to render again: the reader renders the rows
        w.execute("UPDATE p_validator_documents SET valid_until = 0")
        w.execute(BUMP_GENERATION, (net.pchain,))  # and no kept answer is served
    assert validator_documents.page(db, net.pchain, everything, desc=False, after=None,
                                    limit=10_000) is None  # fmt: skip
    try:
        assert [_raw_pages(url, params) for url, params in asked] == stored
    finally:
        validator_documents.refresh_store(db, net.pchain)  # as the writer would
    assert validator_documents.page(db, net.pchain, everything, desc=False, after=None,
                                    limit=10_000) == held  # fmt: skip


def test_l1_validators_equal_get_l1_validator(indexed: Indexed) -> None:
    devnet, api, report, _ = indexed
    node = _p(devnet, "platform.getCurrentValidators", {"subnetID": report.subnet_id})
    ids = [v["validationID"] for v in node["validators"]]
    assert ids
    listed = _pages(
        f"{api}{NET}/l1Validators", "validators",
        {"subnetId": report.subnet_id, "pageSize": 1, "includeInactiveL1Validators": "true"},
        "ListL1ValidatorsResponse",
    )  # fmt: skip
    assert sorted(v["validationId"] for v in listed) == sorted(ids)
    for v in listed:
        n = _p(devnet, "platform.getL1Validator", {"validationID": v["validationId"]})
        assert (v["nodeId"], v["subnetId"]) == (n["nodeID"], n["subnetID"])
        assert (v["weight"], v["remainingBalance"]) == (int(n["weight"]), int(n["balance"]))
        assert v["creationTimestamp"] == int(n["startTime"])
        assert v["blsCredentials"] == {"publicKey": n["publicKey"]}
        for key in ("remainingBalanceOwner", "deactivationOwner"):
            assert v[key]["addresses"] == n[key]["addresses"]
            assert v[key]["threshold"] == int(n[key]["threshold"])
    body = httpx.get(f"{api}{NET}/l1Validators", params={"l1ValidationId": ids[0]}).json()
    assert [v["validationId"] for v in body["validators"]] == ids[:1]
    assert (
        body["blockHeight"]
        == _p(devnet, "platform.getL1Validator", {"validationID": ids[0]})["height"]
    )


def test_network_objects(indexed: Indexed) -> None:
    devnet, api, report, _ = indexed
    node = _current(devnet)
    body = httpx.get(f"{api}{NET}").json()
    assert_matches(body, "GetNetworkDetailsResponse")
    details = body["validatorDetails"]
    assert details["validatorCount"] == len(node)
    assert details["totalAmountStaked"] == str(sum(int(v["weight"]) for v in node.values()))
    assert details["estimatedAnnualStakingReward"] == str(
        sum(int(v["potentialReward"]) for v in node.values())
    )
    assert sum(d["validatorCount"] for d in details["stakingDistributionByVersion"]) == len(node)
    supply = int(_p(devnet, "platform.getCurrentSupply")["supply"])
    assert float(details["stakingRatio"]) == pytest.approx(
        int(details["totalAmountStaked"]) / supply, abs=1e-4
    )
    assert body["delegatorDetails"] == {"delegatorCount": 0, "totalAmountStaked": "0"}
    chains = _pages(
        f"{api}{NET}/blockchains", "blockchains", {"pageSize": 1}, "ListBlockchainsResponse"
    )
    assert report.chain_id in {c["blockchainId"] for c in chains}
    for chain in chains:
        assert httpx.get(f"{api}{NET}/blockchains/{chain['blockchainId']}").json() == chain
    listed = httpx.get(f"{api}{NET}/subnets").json()["subnets"]
    for subnet in listed:
        one = httpx.get(f"{api}{NET}/subnets/{subnet['subnetId']}").json()
        assert_matches(one, "Subnet")
        assert one == subnet
    subnet = httpx.get(f"{api}{NET}/subnets/{report.subnet_id}").json()
    assert subnet["isL1"] and subnet["blockchains"][0]["blockchainId"] == report.chain_id


def test_bad_input_answers_400_or_404(indexed: Indexed) -> None:
    _, api, report, _ = indexed
    base = f"{api}{NET}"
    chain_id = report.chain_id
    cases = [
        (f"{base}/blockchains/p-chain/blocks/{chain_id}", {}, 404, "block"),
        (f"{base}/blockchains/p-chain/blocks/nope", {}, 400, "blockId"),
        (f"{base}/blockchains/p-chain/blocks/{'9' * 30}", {}, 400, "blockId"),
        (f"{base}/blockchains/p-chain/blocks/99999999", {}, 404, "block"),
        (f"{base}/blockchains/x-chain/blocks", {}, 404, "not indexed"),
        (f"{base}/blockchains/p-chain/nodes/NodeID-nope/blocks", {}, 400, "nodeId"),
        (f"{base}/blockchains/p-chain/blocks", {"pageToken": "garbage"}, 400, "pageToken"),
        (f"{base}/blockchains/p-chain/blocks", {"startTimestamp": 9, "endTimestamp": 1}, 400, ""),
        (f"{base}/validators/NodeID-nope", {}, 400, "nodeId"),
        (f"{base}/validators", {"validationStatus": "gone"}, 400, "validationStatus"),
        (f"{base}/validators", {"minFeePercentage": "1"}, 400, "minFeePercentage"),
        (f"{base}/validators", {"pageToken": "x.y"}, 400, "pageToken"),
        (f"{base}/validators", {"pageSize": 101}, 400, "pageSize"),
        (f"{base}/delegators", {"rewardAddresses": "P-avax1xyz"}, 400, "rewardAddresses"),
        (f"{base}/l1Validators", {"l1ValidationId": "abc"}, 400, "l1ValidationId"),
        (f"{base}/rewards", {}, 400, "addresses"),
        (f"{base}/subnets/{chain_id}", {}, 404, "subnet"),
        (f"{base}/blockchains/{report.subnet_id}", {}, 404, "blockchain"),
        (f"{api}/v1/networks/mainnet", {}, 404, "mainnet"),
    ]
    for url, params, status, mentions in cases:
        assert_error(httpx.get(url, params=params), status, mentions)


def test_the_official_client_reads_every_operation(indexed: Indexed) -> None:
    devnet, api, report, _ = indexed
    net = {"network": "fuji"}
    p = {**net, "blockchainId": "p-chain"}
    proposer = httpx.get(f"{api}{NET}/blockchains/p-chain/blocks").json()["blocks"][0]
    node_id = proposer["proposerDetails"].get("proposerNodeId", report.node_id)
    calls = [
        Call("data.primaryNetwork.blocks.get", {**p, "blockId": proposer["blockHash"]}),
        Call("data.primaryNetwork.blocks.listLatest", {**p, "pageSize": 2}, "all"),
        Call(
            "data.primaryNetwork.blocks.listByNodeId",
            {**p, "nodeId": node_id, "pageSize": 2},
            "all",
        ),
        Call("data.primaryNetwork.listBlockchains", {**net, "pageSize": 1}, "all"),
        Call("data.primaryNetwork.getBlockchainById", {**net, "blockchainId": report.chain_id}),
        Call("data.primaryNetwork.getSubnetById", {**net, "subnetId": report.subnet_id}),
        Call("data.primaryNetwork.getNetworkDetails", net),
        Call("data.primaryNetwork.listValidators", {**net, "pageSize": 1}, "all"),
        Call(
            "data.primaryNetwork.listValidators",
            {**net, "pageSize": 1, "sortBy": "uptimePerformance", "validationStatus": "active"},
            "all",
        ),
        Call("data.primaryNetwork.getValidatorDetails", {**net, "nodeId": report.node_id}, "all"),
        Call("data.primaryNetwork.listDelegators", {**net, "pageSize": 1}, "all"),
        Call("data.primaryNetwork.listL1Validators", {**net, "pageSize": 1}, "all"),
        Call(
            "data.primaryNetwork.rewards.listHistoricalRewards",
            {**net, "nodeIds": report.node_id, "pageSize": 1},
            "all",
        ),
        Call("data.primaryNetwork.blocks.get", {**p, "blockId": report.chain_id}),
        Call("data.primaryNetwork.getValidatorDetails", {**net, "nodeId": "NodeID-nope"}),
    ]
    results = drive(calls, data=api, network="fuji")
    for call, result in zip(calls[:-2], results[:-2], strict=True):
        assert result.ok, (call.fn, result.error)
        if call.pages == "all":
            assert result.all_pages(), call.fn
    every = _pages(f"{api}{NET}/validators", "validators", {}, "ListValidatorDetailsResponse")
    assert [v for page in results[7].all_pages() for v in page["validators"]] == every
    assert len(every) == len(_current(devnet)) + 1  # the genesis validators and the demo's
    assert sum(len(page["blocks"]) for page in results[1].all_pages()) > 2
    for result, status in zip(results[-2:], (404, 400), strict=True):
        assert not result.ok and result.error.get("statusCode") == status, result.error


def test_the_explorer_shows_the_validators(indexed: Indexed) -> None:
    devnet, _, report, db = indexed
    if db.dialect != "sqlite":
        pytest.skip("the pages read the same API on either database")
    # The explorer picks the network from the listed chains: the devnet's C-Chain, a test one.
    upsert_chain(db, ChainRow(chain_id=43112, name="C-Chain", network="local", rpc_url=devnet.rpc))
    app = create_data_app(
        db, policy=RatePolicy(10**9, 10**9), explorer=ExplorerConfig(rpc=devnet.rpc)
    )
    node = _current(devnet)
    with serve_asgi(app, name="explorer") as base:
        found = browse(
            base,
            [
                {"name": "active", "url": "/#/validators"},
                {"name": "completed", "url": "/#/validators?status=completed"},
                {"name": "one", "url": f"/#/validator/{report.node_id}"},
                {"name": "bad", "url": "/#/validator/NodeID-nope"},
            ],
        )
    active = found["active"]
    assert one(active, "validator-count")[0] == str(len(node))
    assert sorted(active["txs"]) == sorted(node)
    for tx_id, uptime in zip(active["txs"], shown(active, "uptime"), strict=True):
        assert float(uptime[0].rstrip("%")) == float(node[tx_id]["uptime"])
    assert report.txs["addValidator"] in found["completed"]["txs"]
    page = found["one"]
    assert page["txs"] == [report.txs["addValidator"]]
    assert len(shown(page, "delegator")) == 1  # the demo's delegation
    assert found["bad"]["error"], found["bad"]["text"]
    assert not any(found[name]["consoleErrors"] for name in ("active", "completed", "one"))
