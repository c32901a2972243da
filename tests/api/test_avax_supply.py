"""GET /v1/avax/supply over the devnet's P-Chain demo traffic (staking, a delegation, a subnet,
the L1 conversion, a day later the rewards), indexed over the public interfaces into SQLite (and
PostgreSQL when SNOWFIELD_TEST_PG is set): the supply and stake equal the node's
(platform.getCurrentSupply, platform.getCurrentValidators), the burned and paid amounts equal the
UTXOs the node returns for the demo's txs, and the official client takes the answer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.indexer.validator_observer import ValidatorObserver
from snowfield.rpc.client import RpcClient
from snowfield.store.database import Database
from snowfield.testing import RunningNode, database_urls, open_database, serve_asgi, serve_devnet
from snowfield.workload.platform_demo import PlatformDemoReport, demo_secret
from snowfield.workload.x_demo import run_x_demo
from tests.api.conftest import DOCUMENT, assert_error, assert_no_null
from tests.api.test_primary_validators import _p, demo  # noqa: F401 - the fixture
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds
from tests.helpers import sync_primary
from tests.node.test_node_apis import service

Indexed = tuple[RunningNode, str, PlatformDemoReport, Database]
NANO = Decimal(10) ** 9


@pytest.fixture(scope="module", params=_db_kinds())
def indexed(
    request: pytest.FixtureRequest,
    demo: tuple[RunningNode, PlatformDemoReport],  # noqa: F811 - the imported fixture
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Indexed]:
    devnet, report = demo
    urls = database_urls(tmp_path_factory.mktemp("supply"))
    url = urls[0] if request.param == "sqlite" else urls[1]
    with open_database(url) as db, serve_asgi(create_data_app(db)) as api:
        # Before the indexer has observed the node, there is no supply to give.
        assert_error(httpx.get(f"{api}/v1/avax/supply"), 404, "indexed")
        asyncio.run(sync_primary(db, devnet.base))
        yield devnet, api, report, db


def _nano(avax: str) -> int:
    value = Decimal(avax) * NANO
    assert value == value.to_integral_value(), avax  # never finer than a nAVAX
    return int(value)


def test_the_supply_equals_the_nodes(indexed: Indexed) -> None:
    devnet, api, _, _ = indexed
    got = httpx.get(f"{api}/v1/avax/supply")
    assert got.status_code == 200, got.text
    body = got.json()
    assert_no_null(body)
    schema = DOCUMENT["components"]["schemas"]["AvaxSupplyResponse"]
    assert set(body) == set(schema["properties"]) == set(schema["required"])
    node = _p(devnet, "platform.getCurrentSupply")
    burned = sum(_nano(body[k]) for k in ("totalPBurned", "totalXBurned"))
    c_burned = Decimal(body["totalCBurned"])
    # The total is the node's current supply (genesis plus minted rewards) less what burned.
    assert Decimal(body["totalSupply"]) + c_burned == (int(node["supply"]) - burned) / NANO
    assert burned > 0  # every demo tx paid a fee
    current = _p(devnet, "platform.getCurrentValidators")["validators"]
    staked = sum(int(v["weight"]) + int(v.get("delegatorWeight", 0)) for v in current)
    assert _nano(body["totalStaked"]) == staked
    assert _nano(body["circulatingSupply"]) == _nano(body["totalSupply"]) - _nano(
        body["totalLocked"]
    )
    height = int(node["height"])
    block = _p(devnet, "platform.getBlockByHeight", {"height": height, "encoding": "json"})
    stamp = datetime.fromisoformat(body["lastUpdated"].replace("Z", "+00:00")).timestamp()
    assert int(stamp) == int(block["block"].get("time", stamp))
    for key in ("totalRewards", "genesisUnlock", "totalLocked", "l1ValidatorFees"):
        assert _nano(body[key]) >= 0


def test_rewards_equal_the_reward_utxos(indexed: Indexed) -> None:
    devnet, api, report, _ = indexed
    paid = 0
    for name in ("addValidator", "addDelegator"):
        got = _p(devnet, "platform.getRewardUTXOs", {"txID": report.txs[name], "encoding": "hex"})
        paid += _reward_total(got["utxos"])
    body = httpx.get(f"{api}/v1/avax/supply").json()
    assert paid > 0 and _nano(body["totalRewards"]) == paid


def _reward_total(utxos: list[str]) -> int:
    from snowfield.formats.hexcheck import decode_hex
    from snowfield.formats.platform.components import UTXO

    total = 0
    for raw in utxos:
        out = UTXO.decode(decode_hex(raw)).output
        total += int(getattr(out, "output", out).amt)
    return total


def test_a_fresh_observation_moves_with_the_node(indexed: Indexed) -> None:
    devnet, api, _, db = indexed

    async def observe() -> None:
        platform, info = RpcClient(devnet.base + "/ext/bc/P"), RpcClient(devnet.base + "/ext/info")
        try:
            await ValidatorObserver(platform, info, interval=0).observe(db, _pchain(db))
        finally:
            await platform.aclose()
            await info.aclose()

    asyncio.run(observe())
    body = httpx.get(f"{api}/v1/avax/supply").json()
    node = _p(devnet, "platform.getCurrentSupply")
    burned = _nano(body["totalPBurned"]) + _nano(body["totalXBurned"])
    c_burned = Decimal(body["totalCBurned"])
    assert Decimal(body["totalSupply"]) + c_burned == (int(node["supply"]) - burned) / NANO


def _pchain(db: Database) -> str:
    row = db.query_one("SELECT pchain FROM primary_networks")
    assert row is not None
    return str(row[0])


def test_the_official_client_reads_the_supply(indexed: Indexed) -> None:
    _, api, _, _ = indexed
    [result] = drive([Call("avaxSupply.get", None)], data=api)
    value: dict[str, Any] = result.unwrap()
    raw = httpx.get(f"{api}/v1/avax/supply").json()
    # The client parses lastUpdated into a Date and prints it back with milliseconds.
    sent, seen = (datetime.fromisoformat(v.pop("lastUpdated")) for v in (raw, dict(value)))
    assert sent == seen
    value.pop("lastUpdated")
    assert value == raw


def _amount(entry: dict[str, Any]) -> int:
    """A node-JSON input's or output's amount, through a stakeable lock's wrapper."""
    inner = entry.get("output") or entry.get("input") or {}
    inner = inner.get("output") or inner.get("input") or inner
    return int(inner["amount"])


def test_burned_and_l1_fees_equal_the_nodes_txs(indexed: Indexed) -> None:
    devnet, api, report, db = indexed
    avax = _p(devnet, "platform.getStakingAssetID")["assetID"]
    # The genesis validators' txs: in the genesis state, in no block (their stake returns as
    # UTXOs of their tx ids).
    stakers = {str(r[0]) for r in db.query("SELECT tx_id FROM p_txs WHERE height = 0")}
    spent = deposited = l1_spent = genesis_spent = 0
    tx_ids: set[str] = set()
    for height in range(1, int(_p(devnet, "platform.getHeight")["height"]) + 1):
        block = _p(devnet, "platform.getBlockByHeight", {"height": height, "encoding": "json"})
        block = block["block"]
        for tx in block.get("txs") or ([block["tx"]] if "tx" in block else []):
            u = tx["unsignedTx"]
            tx_ids.add(tx["id"])
            # An input of no earlier tx (nor stake of a genesis validator): a genesis allocation.
            genesis_spent += sum(
                _amount(i)
                for i in u.get("inputs") or ()
                if i["assetID"] == avax and i["txID"] not in tx_ids and i["txID"] not in stakers
            )
            ins = [*u.get("inputs", ()), *u.get("importedInputs", ())]
            outs = [*u.get("outputs", ()), *u.get("stake", ()), *u.get("exportedOutputs", ())]
            net = sum(_amount(i) for i in ins if i["assetID"] == avax) - sum(
                _amount(o) for o in outs if o["assetID"] == avax
            )
            spent += net
            funded = sum(int(v["balance"]) for v in u.get("validators", ()) if "balance" in v)
            funded += int(u.get("balance", 0))
            if funded:
                deposited += funded
                l1_spent += net
    assert deposited > 0  # the demo's conversion funds its validator
    listed = _p(devnet, "platform.getCurrentValidators", {"subnetID": report.subnet_id})
    held = sum(
        int(_p(devnet, "platform.getL1Validator", {"validationID": v["validationID"]})["balance"])
        for v in listed["validators"]
    )
    body = httpx.get(f"{api}/v1/avax/supply").json()
    assert _nano(body["totalPBurned"]) == spent - held
    assert _nano(body["l1ValidatorFees"]) == l1_spent - held
    assert l1_spent - held > deposited - held  # the txs' own fees are in it too (documented)
    genesis_stake = sum(
        int(v["weight"])
        for v in _p(devnet, "platform.getCurrentValidators")["validators"]
        if v["txID"] in stakers
    )
    assert genesis_spent > 0 and genesis_stake > 0
    assert _nano(body["genesisUnlock"]) == genesis_stake + genesis_spent


def test_x_chain_burned_equals_the_nodes_x_txs(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Over the X demo (AVAX transfers, a fungible asset, NFT mints, X→P exports imported on P):
    totalXBurned is what the node's X txs consumed beyond what they emitted, and the total is
    still the node's current supply less everything burned."""
    with serve_devnet(validators=1) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        signers = [demo_secret(keys), *keys[:2]]
        quiet: Any = {"interval": 0, "stop": None, "log": lambda _line: None}
        asyncio.run(run_x_demo(devnet.base, signers, rounds=4, **quiet))
        with open_database(database_urls(tmp_path_factory.mktemp("xs"))[0]) as db:
            asyncio.run(sync_primary(db, devnet.base))
            with serve_asgi(create_data_app(db)) as api:
                body = httpx.get(f"{api}/v1/avax/supply").json()
            x_ids = [str(r[0]) for r in db.query("SELECT tx_id FROM x_txs")]
        avax = service(devnet.base + "/ext/bc/X", "avm.getAssetDescription", {"assetID": "AVAX"})
        asset = avax["result"]["assetID"]
        spent = 0
        for tx_id in x_ids:
            got = service(
                devnet.base + "/ext/bc/X", "avm.getTx", {"txID": tx_id, "encoding": "json"}
            )
            u = got["result"]["tx"]["unsignedTx"]
            # Those spending the X-Chain's genesis allocations too: the index reads the genesis.
            ins = [*(u.get("inputs") or ()), *(u.get("importedInputs") or ())]
            outs = [*(u.get("outputs") or ()), *(u.get("exportedOutputs") or ())]
            spent += sum(_amount(i) for i in ins if i["assetID"] == asset)
            spent -= sum(_amount(o) for o in outs if o["assetID"] == asset)
        assert x_ids and spent > 0
        assert _nano(body["totalXBurned"]) == spent
        node = _p(devnet, "platform.getCurrentSupply")
        burned = _nano(body["totalPBurned"]) + spent
        assert (
            Decimal(body["totalSupply"]) + Decimal(body["totalCBurned"])
            == (int(node["supply"]) - burned) / NANO
        )
