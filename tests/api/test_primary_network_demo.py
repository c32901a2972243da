"""Operations 11-13 over the devnet's P-Chain demo traffic (stake, delegate, subnet, chain,
L1 conversion, a day later the rewards), indexed over the public interfaces: every answer
equals what the node says."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.store.database import Database
from snowfield.testing import RunningNode, serve_asgi, serve_devnet
from snowfield.workload.platform_demo import PlatformDemoReport, demo_secret, run_platform_demo
from tests.api.conftest import assert_matches
from tests.helpers import sync_primary
from tests.node.test_node_apis import service

P_ID = "11111111111111111111111111111111LpoYY"


def _p(devnet: RunningNode, method: str, params: dict[str, Any] | None = None) -> Any:
    reply = service(devnet.base + "/ext/bc/P", method, params or {})
    assert "error" not in reply, reply
    return reply["result"]


@pytest.fixture(scope="module")
def indexed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RunningNode, str, PlatformDemoReport, Database]]:
    with serve_devnet(validators=2) as devnet:
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        report = asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        db = Database(str(tmp_path_factory.mktemp("demo") / "p.db"))
        db.migrate()
        asyncio.run(sync_primary(db, devnet.base))
        with serve_asgi(create_data_app(db)) as api:
            yield devnet, api, report, db
        db.close()


def _pages(url: str, key: str, params: dict[str, Any], schema: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token = None
    for _ in range(100):
        got = httpx.get(url, params={**params, **({"pageToken": token} if token else {})})
        assert got.status_code == 200, got.text
        body = got.json()
        assert_matches(body, schema)
        items += body[key]
        token = body.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("paging did not end")


def test_staking_and_pending_rewards_equal_the_node(
    indexed: tuple[RunningNode, str, PlatformDemoReport, Database],
) -> None:
    devnet, api, _, _ = indexed
    validators = _p(devnet, "platform.getCurrentValidators")["validators"]
    node_ids = [v["nodeID"] for v in validators]
    detailed = _p(devnet, "platform.getCurrentValidators", {"nodeIDs": node_ids})["validators"]
    stakers = {v["txID"]: v for v in detailed}
    stakers |= {d["txID"]: d for v in detailed for d in v.get("delegators") or ()}
    url = f"{api}/v1/networks/fuji/blockchains/p-chain/transactions:listStaking"
    listed = _pages(url, "transactions", {"pageSize": 2}, "ListStakingTransactionsResponse")
    assert {t["txHash"] for t in listed} == set(stakers)
    for tx in listed:
        node = stakers[tx["txHash"]]
        assert (tx["nodeId"], tx["estimatedReward"]) == (node["nodeID"], node["potentialReward"])
        assert (tx["startTimestamp"], tx["endTimestamp"]) == (
            int(node["startTime"]),
            int(node["endTime"]),
        )
    pending = f"{api}/v1/networks/fuji/rewards:listPending"
    rewards = _pages(
        pending, "pendingRewards", {"nodeIds": ",".join(node_ids), "pageSize": 1},
        "ListPendingRewardsResponse",
    )  # fmt: skip
    mine = {(r["txHash"], r["rewardType"]): r for r in rewards}
    for tx_id, node in stakers.items():
        kind = "DELEGATOR" if "delegationFee" not in node else "VALIDATOR"
        entry = mine[(tx_id, kind)]
        assert entry["amountStaked"] == node.get("stakeAmount", node["weight"])
        if kind == "VALIDATOR":
            assert entry["estimatedReward"]["amount"] == node["potentialReward"]


def test_the_demo_staker_left_with_its_rewards(
    indexed: tuple[RunningNode, str, PlatformDemoReport, Database],
) -> None:
    devnet, api, report, db = indexed
    url = f"{api}/v1/networks/fuji/blockchains/p-chain/transactions:listStaking"
    listed = {
        t["txHash"] for t in _pages(url, "transactions", {}, "ListStakingTransactionsResponse")
    }
    assert report.txs["addValidator"] not in listed and report.txs["addDelegator"] not in listed
    for name in ("addValidator", "addDelegator"):
        tx_id = report.txs[name]
        node = _p(devnet, "platform.getRewardUTXOs", {"txID": tx_id, "encoding": "hex"})
        stored = db.query(
            "SELECT utxo_bytes FROM p_utxos WHERE tx_id = ? AND reward_type IS NOT NULL"
            " ORDER BY output_index",
            (tx_id,),
        )
        assert node["utxos"], f"{name} was rewarded"
        assert [row[0] for row in stored] == [u[:-8] for u in node["utxos"]], name


def test_subnets_equal_the_node(
    indexed: tuple[RunningNode, str, PlatformDemoReport, Database],
) -> None:
    devnet, api, report, _ = indexed
    node_subnets = {s["id"]: s for s in _p(devnet, "platform.getSubnets")["subnets"]}
    chains = {c["id"]: c for c in _p(devnet, "platform.getBlockchains")["blockchains"]}
    subnets = _pages(f"{api}/v1/networks/testnet/subnets", "subnets", {"pageSize": 1},
                     "ListSubnetsResponse")  # fmt: skip
    created = {c["subnetID"] for c in chains.values()} | set(node_subnets)
    assert {s["subnetId"] for s in subnets} == created - {P_ID}
    demo = next(s for s in subnets if s["subnetId"] == report.subnet_id)
    assert demo["isL1"] is True
    assert demo["l1ConversionTransactionHash"] == report.txs["convertSubnetToL1"]
    assert demo["l1ValidatorManagerDetails"]["blockchainId"] == report.chain_id
    (chain,) = demo["blockchains"]
    node_chain = chains[chain["blockchainId"]]
    assert (chain["blockchainName"], chain["vmId"]) == (node_chain["name"], node_chain["vmID"])
    assert set(node_subnets[report.subnet_id]["controlKeys"]) == {
        "P-" + a for a in demo["ownerAddresses"]
    }
