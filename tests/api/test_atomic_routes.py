"""Atomic moves between the P-, X- and C-Chain as the data API serves them, against the node:
the C-Chain's atomic txs and shared-memory UTXOs (avax.getAtomicTx, avax.getUTXOs), the
X-Chain's imports from P and C (avm.getTx, avm.getUTXOs with and without sourceChain), and the
P-Chain's atomic memory (platform.getUTXOs with sourceChain); on SQLite and PostgreSQL, the
official client taking every answer.

The devnet's traffic: the X demo (X→P imported on P, X→C), a C-Chain import of that X→C
export, an X→C export left in shared memory, C→P left, C→X imported on X, P→X imported on X,
and P→X and P→C left."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.primary.addressing import FUJI_C, FUJI_X
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.atomic.txs import AtomicTx, ExportTx, ImportTx
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.exchange.txs import UTXO as XUTXO
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.components import UTXO, UTXOID, TransferableOutput
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput
from snowfield.formats.platform.transfer_txs import ExportTx as PExportTx
from snowfield.rpc.client import RpcClient
from snowfield.store.database import Database
from snowfield.testing import RunningNode, open_database, serve_asgi, serve_devnet
from snowfield.workload.atomic_demo import export_from_c, import_to_c
from snowfield.workload.platform_demo import PWallet, demo_secret
from snowfield.workload.x_demo import run_x_demo
from snowfield.workload.xwallet import XWallet, x_network
from tests.api.conftest import assert_error, assert_matches
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary
from tests.node.test_node_apis import service

NET = "/v1/networks/testnet/blockchains"
AVAX_NANO = 10**9


@dataclass
class Indexed:
    devnet: RunningNode
    api: str
    db: Database
    secret: bytes
    bare: str  # the wallet's bech32 address without a chain prefix
    xchain: str
    cchain: str

    def node(self, chain: str, method: str, params: dict[str, Any]) -> Any:
        path = {"P": "/ext/bc/P", "X": "/ext/bc/X", "C": "/ext/bc/C/avax"}[chain]
        reply = service(self.devnet.base + path, method, params)
        assert "error" not in reply, reply
        return reply["result"]

    def node_utxos(self, chain: str, source: str | None = None) -> list[Any]:
        """The wallet's UTXOs the node holds on `chain` (from `source`'s shared memory)."""
        method = {"P": "platform.getUTXOs", "X": "avm.getUTXOs", "C": "avax.getUTXOs"}[chain]
        params: dict[str, Any] = {
            "addresses": [f"{chain}-{self.bare}"],
            "encoding": "hex",
            "limit": 1024,
        }
        if source is not None:
            params["sourceChain"] = source
        got = self.node(chain, method, params)
        # The X-Chain's own UTXOs may hold avm outputs (NFTs); shared memory only secp256k1fx.
        kind = XUTXO if chain == "X" and source is None else UTXO
        return [kind.decode(decode_hex(u)) for u in got["utxos"]]

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        got = httpx.get(f"{self.api}{NET}{path}", params=params)
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()
        return body

    def pages(self, path: str, key: str, schema: str, **params: Any) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        token = None
        for _ in range(200):
            body = self.get(path, **params, **({"pageToken": token} if token else {}))
            assert_matches(body, schema)
            items += body[key]
            token = body.get("nextPageToken")
            if not token:
                return items
        raise AssertionError("paging did not end")


async def _p_export(base: str, secret: bytes, destination: ID, amount: int) -> str:
    net = await x_network(base)
    async with RpcClient(f"{base}/ext/bc/P") as p:
        wallet = PWallet(p, secret, net.network_id, net.avax)
        out = TransferableOutput(
            net.avax, TransferOutput(amount, OutputOwners(0, 1, (wallet.address,)))
        )
        tx = await wallet.issue(lambda base: PExportTx(base, destination, (out,)), spend=amount)
        for _ in range(50):
            status = await p.call_object("platform.getTxStatus", {"txID": tx})
            if status["status"] == "Committed":
                return tx
            await asyncio.sleep(0.1)
    raise AssertionError(f"P-Chain export {tx} not committed")


async def _traffic(base: str, secret: bytes, others: list[bytes]) -> tuple[str, str]:
    quiet = {"interval": 0.0, "stop": None, "log": lambda _line: None}
    # Round 1: X→P, imported on P; round 2: X→C.
    await run_x_demo(base, [secret, *others], rounds=2, **quiet)  # type: ignore[arg-type]
    net = await x_network(base)
    async with RpcClient(f"{base}/ext/info") as info:
        got = await info.call_object("info.getBlockchainID", {"alias": "C"})
    cchain = ID.from_string(got["blockchainID"])
    assert await import_to_c(base, secret, net.x_chain)
    wallet = XWallet(base, net, secret)
    try:
        await wallet.export(cchain, wallet.address, AVAX_NANO // 3)  # left for C
        await export_from_c(base, secret, P_CHAIN_ID, AVAX_NANO // 500)  # left for P
        await export_from_c(base, secret, net.x_chain, AVAX_NANO // 300)
        await wallet.import_(cchain)
        await _p_export(base, secret, net.x_chain, AVAX_NANO // 10)
        await wallet.import_(P_CHAIN_ID)
        await _p_export(base, secret, net.x_chain, AVAX_NANO // 20)  # left for X
        await _p_export(base, secret, cchain, AVAX_NANO // 25)  # left for C
    finally:
        await wallet.close()
    return str(net.x_chain), str(cchain)


@pytest.fixture(scope="module", params=_db_kinds())
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    with serve_devnet(validators=1) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        secret = demo_secret(keys)
        xchain, cchain = asyncio.run(_traffic(devnet.base, secret, keys[:2]))
        info = service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]
        hrp = hrp_for_network(int(info["networkID"]))
        bare = format_address("X", hrp, ShortID.from_public_key(public_key_of(secret)).raw)[2:]
        with open_database(_url(request.param, tmp_path_factory.mktemp("at"))) as db:
            asyncio.run(sync_primary(db, devnet.base))
            with serve_asgi(create_data_app(db)) as api:
                yield Indexed(devnet, api, db, secret, bare, xchain, cchain)


def _ids(utxos: list[UTXO]) -> set[str]:
    return {str(u.utxo_id.input_id) for u in utxos}


def _sums(entries: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in entries:
        out[e["assetId"]] = out.get(e["assetId"], 0) + int(e["amount"])
    return out


def test_c_chain_transactions_equal_get_atomic_tx(indexed: Indexed) -> None:
    ix = indexed
    listed = ix.pages(
        "/c-chain/transactions", "transactions", "ListCChainAtomicTransactionsResponse", pageSize=2
    )
    stored = {str(r[0]) for r in ix.db.query("SELECT tx_id FROM c_atomic_txs")}
    assert {t["txHash"] for t in listed} == stored and len(listed) == len(stored) >= 3
    heights = [t["blockHeight"] for t in listed]
    assert heights == sorted(heights, reverse=True)
    kinds = set()
    for t in listed:
        assert ix.get(f"/c-chain/transactions/{t['txHash']}") == t
        node = ix.node("C", "avax.getAtomicTx", {"txID": t["txHash"], "encoding": "hex"})
        tx = AtomicTx.decode(decode_hex(node["tx"]))
        assert t["blockHeight"] == int(node["blockHeight"])
        block = service(
            ix.devnet.base + "/ext/bc/C/rpc",
            "eth_getBlockByNumber",
            [hex(t["blockHeight"]), False],
        )["result"]
        assert t["blockHash"] == block["hash"]
        unsigned = tx.unsigned
        kinds.add(t["txType"])
        if isinstance(unsigned, ExportTx):
            assert t["txType"] == "ExportTx" and t["sourceChain"] == ix.cchain
            assert t["destinationChain"] == str(unsigned.destination_chain)
            assert [
                (i["fromAddress"].lower(), int(i["asset"]["amount"])) for i in t["evmInputs"]
            ] == [("0x" + i.address.hex(), i.amount) for i in unsigned.ins]
            signed = [[base64.b64encode(s).decode()] for c in tx.credentials for s in c.signatures]
            assert [[c["signature"] for c in i["credentials"]] for i in t["evmInputs"]] == signed
            want = {str(UTXOID(tx.id, n).input_id) for n in range(len(unsigned.exported_outputs))}
            assert {u["utxoId"] for u in t["emittedUtxos"]} == want
            assert _sums(t["amountCreated"]) == {
                str(o.asset_id): o.output.amount for o in unsigned.exported_outputs
            }
        else:
            assert isinstance(unsigned, ImportTx)
            assert t["txType"] == "ImportTx" and t["destinationChain"] == ix.cchain
            assert t["sourceChain"] == str(unsigned.source_chain)
            assert {u["utxoId"] for u in t["consumedUtxos"]} == {
                str(i.utxo_id.input_id) for i in unsigned.imported_inputs
            }
            assert all(u["consumingTxHash"] == t["txHash"] for u in t["consumedUtxos"])
            assert [
                (o["toAddress"].lower(), int(o["asset"]["amount"])) for o in t["evmOutputs"]
            ] == [("0x" + o.address.hex(), o.amount) for o in unsigned.outs]
            assert sum(_sums(t["amountUnlocked"]).values()) == sum(
                i.input.amount for i in unsigned.imported_inputs
            )
    assert kinds == {"ImportTx", "ExportTx"}
    mine = ix.pages(
        "/c-chain/transactions",
        "transactions",
        "ListCChainAtomicTransactionsResponse",
        addresses=f"C-{ix.bare}",
        pageSize=1,
        sortOrder="asc",
    )
    assert {t["txHash"] for t in mine} == stored
    imports = ix.pages(
        "/c-chain/transactions",
        "transactions",
        "ListCChainAtomicTransactionsResponse",
        txTypes="ImportTx",
    )
    assert imports and {t["txType"] for t in imports} == {"ImportTx"}


def test_c_chain_utxos_equal_get_utxos(indexed: Indexed) -> None:
    ix = indexed
    want = _ids(ix.node_utxos("C", "X")) | _ids(ix.node_utxos("C", "P"))
    assert want
    got = ix.pages(
        "/c-chain/utxos", "utxos", "ListUtxosResponse", addresses=f"C-{ix.bare}", pageSize=1
    )
    assert {u["utxoId"] for u in got} == want and len(got) == len(want)
    assert {u["createdOnChainId"] for u in got} == {
        ix.xchain,
        "11111111111111111111111111111111LpoYY",
    }
    assert all(u["consumedOnChainId"] == ix.cchain for u in got)
    every = ix.pages(
        "/c-chain/utxos",
        "utxos",
        "ListUtxosResponse",
        addresses=f"C-{ix.bare}",
        includeSpent="true",
        sortBy="amount",
        sortOrder="desc",
        pageSize=2,
    )
    spent = [u for u in every if "consumingTxHash" in u]
    assert spent and {u["utxoId"] for u in every} == want | {u["utxoId"] for u in spent}
    amounts = [int(u["asset"]["amount"]) for u in every]
    assert amounts == sorted(amounts, reverse=True)
    imports = {str(r[0]) for r in ix.db.query("SELECT tx_id FROM c_atomic_imports")}
    assert {u["consumingTxHash"] for u in spent} <= imports
    posted = httpx.post(
        f"{ix.api}{NET}/c-chain/utxos", params={"pageSize": 100}, json={"addresses": ix.bare}
    )
    assert posted.status_code == 200, posted.text
    assert {u["utxoId"] for u in posted.json()["utxos"]} == want


def test_x_chain_imports_consume_what_p_and_c_exported(indexed: Indexed) -> None:
    ix = indexed
    imports = ix.pages(
        "/x-chain/transactions",
        "transactions",
        "ListXChainTransactionsResponse",
        txTypes="ImportTx",
    )
    sources = set()
    for t in imports:
        node = ix.node("X", "avm.getTx", {"txID": t["txHash"], "encoding": "json"})["tx"]
        taken = node["unsignedTx"]["importedInputs"]
        ids = {u["utxoId"] for u in t["consumedUtxos"] if u["createdOnChainId"] != ix.xchain}
        assert ids == {_utxo_id(i["txID"], i["outputIndex"]) for i in taken}, t["txHash"]
        unlocked = sum(int(i["input"]["amount"]) for i in taken) + sum(
            int(i["input"]["amount"]) for i in node["unsignedTx"]["inputs"]
        )
        assert sum(_sums(t["amountUnlocked"]).values()) == unlocked
        assert ix.get(f"/x-chain/transactions/{t['txHash']}") == t
        sources.add(t["sourceChain"])
    assert sources == {ix.cchain, "11111111111111111111111111111111LpoYY"}
    # Spent UTXOs include the imported ones, created on P or C and consumed on X.
    every = ix.pages(
        "/x-chain/utxos",
        "utxos",
        "ListUtxosResponse",
        addresses=f"X-{ix.bare}",
        includeSpent="true",
        pageSize=3,
        sortOrder="asc",
    )
    assert len({u["utxoId"] for u in every}) == len(every)
    times = [u["timestamp"] for u in every]
    assert times == sorted(times)
    newest = ix.pages(
        "/x-chain/utxos",
        "utxos",
        "ListUtxosResponse",
        addresses=f"X-{ix.bare}",
        includeSpent="true",
        pageSize=2,
    )
    assert [u["utxoId"] for u in newest] == [u["utxoId"] for u in reversed(every)]
    imported = {
        u["utxoId"]: u["consumingTxHash"] for u in every if u["createdOnChainId"] != ix.xchain
    }
    import_ids = {t["txHash"] for t in imports}
    assert imported and set(imported.values()) <= import_ids
    for t in imports:
        for u in t["consumedUtxos"]:
            if u["createdOnChainId"] != ix.xchain:
                assert imported[u["utxoId"]] == t["txHash"]
    # Unspent: the node's UTXO set; atomic memory: what P left.
    own = {str(u.utxo_id.input_id) for u in ix.node_utxos("X")}
    unspent = ix.pages(
        "/x-chain/utxos", "utxos", "ListUtxosResponse", addresses=f"X-{ix.bare}", pageSize=2
    )
    assert {u["utxoId"] for u in unspent} == own
    balances = ix.get("/x-chain/balances", addresses=f"X-{ix.bare}")["balances"]
    for source, entries in (("P", ix.node_utxos("X", "P")), ("C", ix.node_utxos("X", "C"))):
        chain = "11111111111111111111111111111111LpoYY" if source == "P" else ix.cchain
        got = [e for e in balances["atomicMemoryUnlocked"] if e["sharedWithChainId"] == chain]
        assert sum(int(e["amount"]) for e in got) == sum(u.output.amount for u in entries)
        assert sum(e["utxoCount"] for e in got) == len(entries)
    assert balances["atomicMemoryUnlocked"]


def _utxo_id(tx_id: str, index: int) -> str:
    return str(UTXOID(ID.from_string(tx_id), index).input_id)


def test_p_chain_atomic_memory_equals_get_utxos_with_source_chain(indexed: Indexed) -> None:
    ix = indexed
    body = ix.get("/p-chain/balances", addresses=f"P-{ix.bare}")
    assert_matches(body, "ListPChainBalancesResponse")
    shared = body["balances"]["atomicMemoryUnlocked"]
    assert shared
    for source, chain in (("X", ix.xchain), ("C", ix.cchain)):
        node = ix.node_utxos("P", source)
        got = [e for e in shared if e["sharedWithChainId"] == chain]
        assert sum(int(e["amount"]) for e in got) == sum(u.output.amount for u in node)
        assert sum(e["utxoCount"] for e in got) == len(node)
    assert {e["status"] for e in shared} == {"unlocked"}
    assert body["balances"]["atomicMemoryLocked"] == []


def _avax_net(entries: list[dict[str, Any]], avax: str) -> int:
    """The AVAX of node-JSON inputs or outputs."""
    return sum(
        int(e.get("input", e.get("output", {})).get("amount", 0))
        for e in entries
        if e["assetID"] == avax
    )


def test_supply_counts_atomic_fees(indexed: Indexed) -> None:
    """totalXBurned covers X imports from P and C (what they took less what they made), and
    totalCBurned the atomic txs' fees (avax.getAtomicTx: AVAX in less AVAX out)."""
    ix = indexed
    got = httpx.get(f"{ix.api}/v1/avax/supply")
    assert got.status_code == 200, got.text
    body = got.json()
    avax = ix.node("X", "avm.getAssetDescription", {"assetID": "AVAX"})["assetID"]
    x_spent = 0
    for r in ix.db.query("SELECT tx_id FROM x_txs"):
        u = ix.node("X", "avm.getTx", {"txID": str(r[0]), "encoding": "json"})["tx"]["unsignedTx"]
        ins = [*(u.get("inputs") or ()), *(u.get("importedInputs") or ())]
        outs = [*(u.get("outputs") or ()), *(u.get("exportedOutputs") or ())]
        x_spent += _avax_net(ins, avax) - _avax_net(outs, avax)
    assert int(Decimal(body["totalXBurned"]) * 10**9) == x_spent > 0
    c_fees = 0
    for r in ix.db.query("SELECT tx_id FROM c_atomic_txs"):
        got = ix.node("C", "avax.getAtomicTx", {"txID": str(r[0]), "encoding": "hex"})
        unsigned = AtomicTx.decode(decode_hex(got["tx"])).unsigned
        if isinstance(unsigned, ExportTx):
            c_fees += sum(i.amount for i in unsigned.ins if str(i.asset_id) == avax)
            c_fees -= sum(
                o.output.amount for o in unsigned.exported_outputs if str(o.asset_id) == avax
            )
        else:
            assert isinstance(unsigned, ImportTx)
            c_fees += sum(
                i.input.amount for i in unsigned.imported_inputs if str(i.asset_id) == avax
            )
            c_fees -= sum(o.amount for o in unsigned.outs if str(o.asset_id) == avax)
    # No EVM block fees here: the C-Chain's EVM blocks are not indexed in this store.
    assert Decimal(body["totalCBurned"]) * 10**9 == c_fees > 0


def test_atomic_memory_at_a_time(indexed: Indexed) -> None:
    """At a `blockTimestamp`, a chain's atomic memory is what was exported to it by then and
    not imported by then: nothing before the first export, today's at the latest time."""
    ix = indexed
    for chain in ("c-chain", "x-chain", "p-chain"):
        address = f"{chain[0].upper()}-{ix.bare}"
        now = ix.get(f"/{chain}/balances", addresses=address)["balances"]
        assert now["atomicMemoryUnlocked"], chain
        early = ix.get(f"/{chain}/balances", addresses=address, blockTimestamp=1)["balances"]
        assert early["atomicMemoryUnlocked"] == [], chain
        late = ix.get(f"/{chain}/balances", addresses=address, blockTimestamp=2**40)["balances"]
        assert late["atomicMemoryUnlocked"] == now["atomicMemoryUnlocked"], chain


def test_c_chain_last_activity_and_chain_ids(indexed: Indexed) -> None:
    ix = indexed
    body = ix.get("/c-chain/lastActivityTimestampByAddresses", addresses=f"C-{ix.bare}")
    assert_matches(body, "LastActivityTimestamp")
    latest = ix.db.query("SELECT tx_id, height, timestamp FROM c_atomic_txs")
    newest = max(int(r[2]) for r in latest)
    assert body["timestamp"] == newest and body["chainName"] == "c-chain"
    assert (body["txHash"], int(body["blockNumber"])) in {(str(r[0]), int(r[1])) for r in latest}
    node = ix.node("C", "avax.getAtomicTx", {"txID": body["txHash"], "encoding": "hex"})
    assert int(node["blockHeight"]) == int(body["blockNumber"])
    posted = httpx.post(
        f"{ix.api}{NET}/c-chain/lastActivityTimestampByAddresses",
        json={"addresses": f"C-{ix.bare}"},
    )
    assert posted.json() == body
    ids = httpx.get(
        f"{ix.api}/v1/networks/testnet/addresses:listChainIds", params={"addresses": ix.bare}
    ).json()["addresses"][0]["blockchainIds"]
    assert FUJI_C in ids and FUJI_X in ids
    idle = httpx.get(
        f"{ix.api}{NET}/c-chain/lastActivityTimestampByAddresses",
        params={"addresses": "C-" + format_address("C", ix.bare.split("1")[0], bytes(20))[2:]},
    )
    assert_error(idle, 404)


def test_bad_inputs_on_the_c_chain(indexed: Indexed) -> None:
    api = indexed.api
    base = f"{api}{NET}/c-chain"
    assert_error(httpx.get(f"{base}/transactions/notanid"), 400)
    assert_error(httpx.get(f"{base}/transactions/{'1' * 32}LpoYY"), 404)
    assert_error(httpx.get(f"{base}/utxos", params={"addresses": f"X-{indexed.bare}"}), 400)
    assert_error(httpx.get(f"{base}/utxos", params={"addresses": "C-nonsense"}), 400)
    assert_error(
        httpx.get(f"{base}/utxos", params={"addresses": indexed.bare, "pageToken": "x"}), 400
    )
    assert_error(httpx.get(f"{base}/transactions", params={"addresses": f"P-{indexed.bare}"}), 400)


def test_the_official_client_takes_every_answer(indexed: Indexed) -> None:
    ix = indexed
    c = {"blockchainId": "c-chain"}
    wallet = f"C-{ix.bare}"
    results = drive(
        [
            Call("data.primaryNetwork.transactions.listLatest", {**c, "pageSize": 1}, "all"),
            Call(
                "data.primaryNetwork.utxos.listByAddresses",
                {**c, "addresses": wallet, "pageSize": 1, "includeSpent": True},
                "all",
            ),
            Call(
                "data.primaryNetwork.utxos.listByAddressesV2",
                {**c, "pageSize": 1, "primaryNetworkAddressesBodyDto": {"addresses": wallet}},
                "all",
            ),
            Call(
                "data.primaryNetwork.balances.listByAddresses",
                {"blockchainId": "p-chain", "addresses": f"P-{ix.bare}"},
            ),
            Call(
                "data.primaryNetwork.utxos.listByAddresses",
                {
                    "blockchainId": "x-chain",
                    "addresses": f"X-{ix.bare}",
                    "pageSize": 2,
                    "includeSpent": True,
                },
                "all",
            ),
            Call(
                "data.primaryNetwork.transactions.listLatest",
                {"blockchainId": "x-chain", "pageSize": 2, "txTypes": ["ImportTx"]},
                "all",
            ),
            Call(
                "data.primaryNetwork.utxos.getLastActivityTimestampByAddresses",
                {**c, "addresses": wallet},
            ),
            Call("data.primaryNetwork.getChainIdsForAddresses", {"addresses": ix.bare}),
        ],
        data=ix.api,
    )
    for r in results:
        assert r.ok, r.error
    assert len(results[0].all_pages()) > 2 and len(results[1].all_pages()) > 1
    hashes = [t["txHash"] for page in results[0].all_pages() for t in page["transactions"]]
    got = drive(
        [Call("data.primaryNetwork.transactions.get", {**c, "txHash": h}) for h in hashes],
        data=ix.api,
    )
    assert [g.unwrap()["txHash"] for g in got] == hashes
