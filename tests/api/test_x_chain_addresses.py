"""The X-Chain on the primary network's address operations and its asset operations, over the
devnet's X demo (a fungible asset, AVAX transfers, NFT mints, X→P exports imported on P, X→C
exports) indexed over the public interfaces: balances and UTXO sets equal avm.getBalance /
avm.getUTXOs, txs render what avm.getTx (JSON) holds, on SQLite and PostgreSQL; the official
client takes every answer, with paging."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.primary.addressing import FUJI_X
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.exchange.txs import UTXO
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.components import UTXO as PUTXO
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.vertex import decode_vertex
from snowfield.store.database import Database
from snowfield.testing import RunningNode, open_database, serve_asgi, serve_devnet
from snowfield.workload.platform_demo import demo_secret
from snowfield.workload.x_demo import run_x_demo
from tests.api.conftest import assert_error, assert_matches
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary
from tests.node.test_node_apis import service

BASE = "/v1/networks/testnet/blockchains/x-chain"


class Indexed:
    def __init__(self, devnet: RunningNode, api: str, db: Database, wallets: list[str]) -> None:
        self.devnet, self.api, self.db, self.wallets = devnet, api, db, wallets

    def x(self, method: str, params: dict[str, Any]) -> Any:
        reply = service(self.devnet.base + "/ext/bc/X", method, params)
        assert "error" not in reply, reply
        return reply["result"]

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        got = httpx.get(f"{self.api}{BASE}{path}", params=params)
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()
        return body

    def node_utxos(self, address: str) -> list[UTXO]:
        """The address's UTXOs the node holds (its genesis allocations among them: the index
        reads the genesis tx too)."""
        got = self.x("avm.getUTXOs", {"addresses": [address], "encoding": "hex", "limit": 1024})
        return [UTXO.decode(decode_hex(u)) for u in got["utxos"]]


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[RunningNode, list[str]]]:
    """The devnet with its X demo, built once for both databases; and the signers' wallets."""
    with serve_devnet(validators=1) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        signers = [demo_secret(keys), *keys[:2]]
        asyncio.run(
            run_x_demo(
                devnet.base, signers, rounds=6, interval=0, stop=None, log=lambda _line: None
            )
        )
        info = service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]
        hrp = hrp_for_network(int(info["networkID"]))
        wallets = [
            format_address("X", hrp, ShortID.from_public_key(public_key_of(s)).raw) for s in signers
        ]
        yield devnet, wallets


@pytest.fixture(scope="module", params=_db_kinds())
def indexed(
    request: pytest.FixtureRequest,
    demo: tuple[RunningNode, list[str]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Indexed]:
    devnet, wallets = demo
    with open_database(_url(request.param, tmp_path_factory.mktemp("xa"))) as db:
        asyncio.run(sync_primary(db, devnet.base))
        with serve_asgi(create_data_app(db)) as api:
            yield Indexed(devnet, api, db, wallets)


def _pages(ix: Indexed, path: str, key: str, schema: str, **params: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token = None
    for _ in range(200):
        body = ix.get(path, **params, **({"pageToken": token} if token else {}))
        assert_matches(body, schema)
        items += body[key]
        token = body.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("paging did not end")


def test_balances_equal_the_nodes_utxos_and_get_balance(indexed: Indexed) -> None:
    checked = 0
    for address in indexed.wallets:
        body = indexed.get("/balances", addresses=address)
        assert_matches(body, "ListXChainBalancesResponse")
        b = body["balances"]
        got = {e["assetId"]: int(e["amount"]) for e in b["unlocked"] + b["locked"]}
        want: dict[str, int] = {}
        for u in indexed.node_utxos(address):
            if isinstance(u.output, TransferOutput):
                want[str(u.asset_id)] = want.get(str(u.asset_id), 0) + u.output.amt
        assert got == want, address
        for asset_id, amount in got.items():
            node = indexed.x("avm.getBalance", {"address": address, "assetID": asset_id})
            assert amount == int(node["balance"]), (address, asset_id)
            checked += 1
    assert checked > 0


def test_utxo_pages_equal_get_utxos(indexed: Indexed) -> None:
    spent_somewhere = False
    for address in indexed.wallets:
        want = {str(u.id) for u in indexed.node_utxos(address)}
        items = _pages(
            indexed, "/utxos", "utxos", "ListUtxosResponse", addresses=address, pageSize=2
        )
        assert {u["utxoId"] for u in items} == want
        assert len(items) == len(want)
        spent = _pages(
            indexed,
            "/utxos",
            "utxos",
            "ListUtxosResponse",
            addresses=address,
            pageSize=3,
            includeSpent="true",
            sortBy="amount",
            sortOrder="desc",
        )
        assert want <= {u["utxoId"] for u in spent}
        spent_somewhere |= len(spent) > len(want)
        amounts = [int(u["asset"]["amount"]) for u in spent]
        assert amounts == sorted(amounts, reverse=True)
        posted = httpx.post(
            f"{indexed.api}{BASE}/utxos", params={"pageSize": 100}, json={"addresses": address}
        )
        assert posted.status_code == 200, posted.text
        assert {u["utxoId"] for u in posted.json()["utxos"]} == want
    assert spent_somewhere


def _sum(entries: list[dict[str, Any]], key: str = "amount") -> dict[str, int]:
    out: dict[str, int] = {}
    for e in entries:
        out[e["assetID"]] = out.get(e["assetID"], 0) + int(e["output"][key])
    return out


def test_txs_render_what_get_tx_holds(indexed: Indexed) -> None:
    txs = _pages(
        indexed, "/transactions", "transactions", "ListXChainTransactionsResponse", pageSize=4
    )
    ids = {str(r[0]) for r in indexed.db.query("SELECT tx_id FROM x_txs")}
    assert {t["txHash"] for t in txs} == ids
    stamps = [t["timestamp"] for t in txs]
    assert stamps == sorted(stamps, reverse=True)
    for t in txs:
        node = indexed.x("avm.getTx", {"txID": t["txHash"], "encoding": "json"})["tx"]
        unsigned = node["unsignedTx"]
        assert t["memo"] == unsigned["memo"]
        one = indexed.get(f"/transactions/{t['txHash']}")
        assert one == t
        created = {a["assetId"]: int(a["amount"]) for a in t["amountCreated"]}
        outputs = _sum(unsigned["outputs"] + unsigned.get("exportedOutputs", []))
        if t["txType"] in ("BaseTx", "ExportTx", "ImportTx"):
            assert created == outputs, t["txHash"]
        if t["txType"] in ("BaseTx", "ExportTx"):
            unlocked = {a["assetId"]: int(a["amount"]) for a in t["amountUnlocked"]}
            spent: dict[str, int] = {}
            for i in unsigned["inputs"]:
                spent[i["assetID"]] = spent.get(i["assetID"], 0) + int(i["input"]["amount"])
            assert unlocked == spent, t["txHash"]
        if t["txType"] == "ExportTx":
            assert t["destinationChain"] == unsigned["destinationChain"]
        assert t["chainFormat"] == "linear" and t["blockHeight"] >= 0


def test_avax_the_genesis_asset(indexed: Indexed) -> None:
    """AVAX's details come from the X-Chain's genesis tx (avm.getTx of the asset id), its
    creation at the genesis time; its genesis allocations are UTXOs of that tx."""
    node = indexed.x("avm.getAssetDescription", {"assetID": "AVAX"})
    avax = node["assetID"]
    body = indexed.get(f"/assets/{avax}")
    assert_matches(body, "XChainAssetDetails")
    assert (body["name"], body["symbol"], body["denomination"], body["cap"]) == (
        node["name"],
        node["symbol"],
        int(node["denomination"]),
        "fixed",
    )
    genesis = indexed.x("avm.getTx", {"txID": avax, "encoding": "json"})["tx"]["unsignedTx"]
    allocations = [o for s in genesis["initialStates"] for o in s["outputs"]]
    p_genesis = indexed.db.query("SELECT timestamp FROM p_blocks WHERE height = 0")
    assert body["createdAtTimestamp"] == int(p_genesis[0][0])
    rows = indexed.db.query("SELECT amount, addresses FROM x_utxos WHERE tx_id = ?", (avax,))
    assert sorted(int(r[0]) for r in rows) == sorted(int(o["amount"]) for o in allocations)
    assert sorted(str(r[1]) for r in rows) == sorted(o["addresses"][0][2:] for o in allocations)
    # A genesis UTXO the demo spent is consumed in the index, as it is gone from the node.
    wallet = indexed.wallets[0]
    spent = httpx.get(
        f"{indexed.api}{BASE}/utxos",
        params={"addresses": wallet, "includeSpent": "true", "pageSize": 100, "sortOrder": "asc"},
    ).json()["utxos"]
    theirs = [u for u in spent if u["creationTxHash"] == avax]
    assert theirs and all("consumingTxHash" in u for u in theirs)


def test_assets_and_their_transactions(indexed: Indexed) -> None:
    rows = indexed.db.query(
        "SELECT asset_id, name, symbol, denomination FROM x_assets WHERE idx >= 0"
    )
    assert rows
    for asset_id, name, symbol, denomination in rows:
        body = indexed.get(f"/assets/{asset_id}")
        assert_matches(body, "XChainAssetDetails")
        node = indexed.x("avm.getAssetDescription", {"assetID": asset_id})
        assert (
            (body["name"], body["symbol"], body["denomination"])
            == (
                node["name"],
                node["symbol"],
                int(node["denomination"]),
            )
            == (name, symbol, denomination)
        )
        txs = _pages(
            indexed,
            f"/assets/{asset_id}/transactions",
            "transactions",
            "ListXChainTransactionsResponse",
            pageSize=2,
        )
        assert txs[-1]["txHash"] == asset_id  # its CreateAssetTx, the oldest
        for t in txs:
            touched = {u["asset"]["assetId"] for u in t["consumedUtxos"] + t["emittedUtxos"]}
            assert asset_id in touched or t["txHash"] == asset_id


def test_activity_and_chain_ids(indexed: Indexed) -> None:
    address = indexed.wallets[0]
    body = indexed.get("/lastActivityTimestampByAddresses", addresses=address)
    assert_matches(body, "LastActivityTimestamp")
    latest = indexed.db.query(
        "SELECT MAX(timestamp) FROM x_tx_addresses WHERE address = ?", (address[2:],)
    )
    assert body["timestamp"] == int(latest[0][0]) and body["chainName"] == "x-chain"
    height = indexed.db.query(
        "SELECT height FROM x_tx_places WHERE kind = 'block' AND tx_id = ?", (body["txHash"],)
    )
    assert body["blockNumber"] == str(height[0][0])
    node = indexed.x("avm.getBlockByHeight", {"height": int(height[0][0]), "encoding": "hex"})
    block = StandardBlock.decode(decode_hex(node["block"]))
    assert body["txHash"] in {str(t.id) for t in block.txs}
    got = httpx.get(
        f"{indexed.api}/v1/networks/testnet/addresses:listChainIds",
        params={"addresses": address},
    )
    assert FUJI_X in got.json()["addresses"][0]["blockchainIds"]


def test_bad_inputs_answer_400_or_404(indexed: Indexed) -> None:
    api = indexed.api
    p_address = "P-" + indexed.wallets[0][2:]
    assert_error(httpx.get(f"{api}{BASE}/balances", params={"addresses": p_address}), 400)
    bad = indexed.wallets[0][:-1] + ("q" if indexed.wallets[0][-1] != "q" else "p")
    assert_error(httpx.get(f"{api}{BASE}/utxos", params={"addresses": bad}), 400)
    assert_error(httpx.get(f"{api}{BASE}/transactions/notanid"), 400)
    unknown = "2" * 49
    assert_error(httpx.get(f"{api}{BASE}/transactions/{'1' * 32}LpoYY"), 404)
    assert_error(httpx.get(f"{api}{BASE}/assets/{'1' * 32}LpoYY"), 404)
    assert_error(httpx.get(f"{api}{BASE}/assets/{unknown}"), 400)
    assert_error(
        httpx.get(f"{api}{BASE}/utxos", params={"addresses": indexed.wallets[0], "pageToken": "x"}),
        400,
    )
    p_assets = "/v1/networks/testnet/blockchains/p-chain/assets/" + "1" * 32 + "LpoYY"
    assert_error(httpx.get(f"{api}{p_assets}"), 404)


def test_the_official_client_takes_every_answer(indexed: Indexed) -> None:
    wallet = indexed.wallets[0]
    x = {"blockchainId": "x-chain"}
    # The asset most txs touch: its transactions take several pages.
    asset_id = str(
        indexed.db.query(
            "SELECT a.asset_id FROM x_assets a ORDER BY (SELECT COUNT(DISTINCT u.tx_id)"
            " FROM x_utxos u WHERE u.asset_id = a.asset_id) DESC LIMIT 1"
        )[0][0]
    )
    results = drive(
        [
            Call("data.primaryNetwork.balances.listByAddresses", {**x, "addresses": wallet}),
            Call(
                "data.primaryNetwork.utxos.listByAddresses",
                {**x, "addresses": wallet, "pageSize": 2, "includeSpent": True},
                "all",
            ),
            Call(
                "data.primaryNetwork.utxos.listByAddressesV2",
                {**x, "pageSize": 2, "primaryNetworkAddressesBodyDto": {"addresses": wallet}},
                "all",
            ),
            Call(
                "data.primaryNetwork.utxos.getLastActivityTimestampByAddresses",
                {**x, "addresses": wallet},
            ),
            Call(
                "data.primaryNetwork.utxos.getLastActivityTimestampByAddressesV2",
                {**x, "primaryNetworkAddressesBodyDto": {"addresses": wallet}},
            ),
            Call("data.primaryNetwork.getChainIdsForAddresses", {"addresses": wallet}),
            Call(
                "data.primaryNetwork.transactions.listLatest",
                {**x, "addresses": wallet, "pageSize": 3},
                "all",
            ),
            Call(
                "data.primaryNetwork.transactions.listLatest",
                {**x, "pageSize": 4, "txTypes": ["ExportTx", "BaseTx"]},
                "all",
            ),
            Call("data.primaryNetwork.getAssetDetails", {**x, "assetId": asset_id}),
            Call(
                "data.primaryNetwork.transactions.listAssetTransactions",
                {**x, "assetId": asset_id, "pageSize": 1},
                "all",
            ),
        ],
        data=indexed.api,
    )
    for r in results:
        assert r.ok, r.error
    assert len(results[1].all_pages()) > 1 and len(results[6].all_pages()) > 1
    assert len(results[9].all_pages()) > 1
    first = results[7].all_pages()[0]["transactions"][0]["txHash"]
    (one,) = drive(
        [Call("data.primaryNetwork.transactions.get", {**x, "txHash": first})], data=indexed.api
    )
    assert one.unwrap()["txHash"] == first


def test_c_chain_atomic_memory_equals_get_utxos(indexed: Indexed) -> None:
    seen = 0
    for wallet in indexed.wallets:
        address = "C-" + wallet[2:]
        got = httpx.get(
            f"{indexed.api}/v1/networks/testnet/blockchains/c-chain/balances",
            params={"addresses": address},
        )
        assert got.status_code == 200, got.text
        body = got.json()
        assert_matches(body, "ListCChainAtomicBalancesResponse")
        shared = body["balances"]["atomicMemoryUnlocked"]
        reply = service(
            indexed.devnet.base + "/ext/bc/C/avax",
            "avax.getUTXOs",
            {"addresses": [address], "sourceChain": "X", "encoding": "hex", "limit": 1024},
        )["result"]
        utxos = [PUTXO.decode(decode_hex(u)) for u in reply["utxos"]]
        want: dict[str, tuple[int, int]] = {}
        for u in utxos:
            assert isinstance(u.output, TransferOutput)
            amount, count = want.get(str(u.asset_id), (0, 0))
            want[str(u.asset_id)] = (amount + u.output.amt, count + 1)
        assert {e["assetId"]: (int(e["amount"]), e["utxoCount"]) for e in shared} == want
        assert body["balances"]["atomicMemoryLocked"] == []
        seen += len(utxos)
    assert seen > 0
    (result,) = drive(
        [
            Call(
                "data.primaryNetwork.balances.listByAddresses",
                {"blockchainId": "c-chain", "addresses": "C-" + indexed.wallets[0][2:]},
            )
        ],
        data=indexed.api,
    )
    assert result.ok, result.error


def test_dag_era_txs_render_with_their_vertices(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A devnet whose X-Chain accepts its first txs in vertices, then linearizes: each tx of
    the DAG era is an XChainNonLinearTransaction naming the vertices avm's vertex index holds it
    in, each later one an XChainLinearTransaction; the official client takes both."""
    with serve_devnet(x_dag_vertices=4) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys[-3:]]
        quiet = {"interval": 0.0, "stop": None, "log": lambda _line: None}
        asyncio.run(run_x_demo(devnet.base, keys, rounds=4, **quiet))  # type: ignore[arg-type]
        vertices = service(
            devnet.base + "/ext/index/X/vtx",
            "index.getContainerRange",
            {"startIndex": 0, "numToFetch": 100, "encoding": "hex"},
        )["result"]
        in_vertex: dict[str, set[str]] = {}
        for c in vertices.get("containers", vertices) if isinstance(vertices, dict) else vertices:
            for tx in decode_vertex(decode_hex(c["bytes"])).tx_ids:
                in_vertex.setdefault(str(tx), set()).add(str(c["id"]))
        with open_database(_url("sqlite", tmp_path_factory.mktemp("xd"))) as db:
            asyncio.run(sync_primary(db, devnet.base))
            with serve_asgi(create_data_app(db)) as api:
                got = httpx.get(f"{api}{BASE}/transactions", params={"pageSize": 100})
                assert got.status_code == 200, got.text
                body = got.json()
                assert_matches(body, "ListXChainTransactionsResponse")
                kinds = {t["chainFormat"] for t in body["transactions"]}
                assert kinds == {"linear", "non-linear"}
                for t in body["transactions"]:
                    if t["chainFormat"] == "non-linear":
                        assert {v["hash"] for v in t["vertices"]} == in_vertex[t["txHash"]]
                    else:
                        assert t["txHash"] not in in_vertex
                old = next(t for t in body["transactions"] if t["chainFormat"] == "non-linear")
                (one,) = drive(
                    [
                        Call(
                            "data.primaryNetwork.transactions.get",
                            {"blockchainId": "x-chain", "txHash": old["txHash"]},
                        )
                    ],
                    data=api,
                )
                assert one.unwrap()["vertices"] == old["vertices"]
