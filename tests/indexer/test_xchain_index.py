"""The X-Chain index over the devnet's X demo (a fungible asset, AVAX transfers, NFT mints,
X→P and X→C exports), followed through the node's public tx index: every unspent UTXO it holds
is one avm.getUTXOs lists, every tx is one avm.getTx knows, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.exchange.txs import UTXO
from snowfield.formats.hexcheck import decode_hex
from snowfield.store import x_chain
from snowfield.store.database import Database
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.x_schema import X_TABLES
from snowfield.testing import RunningNode, open_database
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary
from tests.indexer.conftest import XDemo
from tests.node.test_node_apis import service

Indexed = tuple[RunningNode, Database, str, list[str]]


def _x(devnet: RunningNode, method: str, params: dict[str, Any]) -> Any:
    reply = service(devnet.base + "/ext/bc/X", method, params)
    assert "error" not in reply, reply
    return reply["result"]


_sync = sync_primary


@pytest.fixture(scope="module")
def indexed(x_demo: XDemo, x_demo_indexed: Database) -> Indexed:
    """The package's X demo (shared with the C-Chain atomic index tests), indexed."""
    return x_demo.devnet, x_demo_indexed, x_demo.xchain, x_demo.addresses("X")


def _indexed_txs(db: Database, xchain: str) -> dict[str, str]:
    return {
        str(r[0]): str(r[1])
        for r in db.query("SELECT tx_id, tx_type FROM x_txs WHERE xchain = ?", (xchain,))
    }


def test_every_accepted_tx_is_indexed_once_in_order(indexed: Indexed) -> None:
    devnet, db, xchain, _ = indexed
    txs = _indexed_txs(db, xchain)
    kinds = set(txs.values())
    assert {"CreateAssetTx", "BaseTx", "OperationTx", "ExportTx"} <= kinds, kinds
    last = service(devnet.base + "/ext/index/X/tx", "index.getLastAccepted", {"encoding": "hex"})
    assert x_chain.next_index(db, xchain) == int(last["result"]["index"]) + 1 == len(txs)
    for tx_id in txs:
        _x(devnet, "avm.getTx", {"txID": tx_id, "encoding": "hex"})


def test_unspent_utxos_equal_get_utxos(indexed: Indexed) -> None:
    devnet, db, xchain, wallets = indexed
    compared = 0
    for address in wallets:
        bare = address[2:]
        node = _x(devnet, "avm.getUTXOs", {"addresses": [address], "encoding": "hex"})
        utxos = [UTXO.decode(decode_hex(u)) for u in node["utxos"]]
        # Genesis UTXOs too: the indexer reads the genesis tx (avm.getTx of the AVAX id).
        want = {str(u.id) for u in utxos}
        got = {
            str(r[0])
            for r in db.query(
                "SELECT u.utxo_id FROM x_utxo_owners o JOIN x_utxos u ON u.xchain = o.xchain"
                " AND u.utxo_id = o.utxo_id WHERE o.xchain = ? AND o.address = ?"
                " AND u.consumed_on = o.xchain AND u.consuming_tx IS NULL",
                (xchain, bare),
            )
        }
        assert got == want, address
        compared += len(want)
    assert compared > 0


def test_unwind_removes_what_later_txs_derived(
    indexed: Indexed, tmp_path_factory: pytest.TempPathFactory
) -> None:
    devnet, db, xchain, _ = indexed
    with open_database(_url("sqlite", tmp_path_factory.mktemp("xu"))) as other:
        asyncio.run(_sync(other, devnet.base))
        total = x_chain.next_index(other, xchain)
        cut = total // 2
        x_chain.unwind(other, xchain, cut)
        left = other.query("SELECT COUNT(*) FROM x_txs WHERE xchain = ?", (xchain,))
        assert int(left[0][0]) == cut
        late = other.query(
            "SELECT COUNT(*) FROM x_utxos WHERE xchain = ? AND (idx >= ? OR consuming_idx >= ?)",
            (xchain, cut, cut),
        )
        assert int(late[0][0]) == 0
        asyncio.run(_sync(other, devnet.base))  # follows again from the cut
        assert x_chain.next_index(other, xchain) == total
        assert _indexed_txs(other, xchain) == _indexed_txs(db, xchain)


def test_a_store_of_schema_11_gains_the_x_chain_tables(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    for kind in _db_kinds():
        with open_database(_url(kind, tmp_path_factory.mktemp("xm"))) as db:
            with db.transaction() as w:
                for ddl in X_TABLES:
                    if ddl.startswith("CREATE TABLE"):
                        w.execute(f"DROP TABLE {ddl.split()[5]}")
                w.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
            db.migrate()
            assert db.meta("schema_version") == str(SCHEMA_VERSION)
            assert x_chain.next_index(db, "X") == 0
            x_chain.unwind(db, "X", 0)


def test_every_tx_has_its_vertex_or_block(indexed: Indexed) -> None:
    devnet, db, xchain, _ = indexed
    places = db.query(
        "SELECT tx_id, kind, container_id, height FROM x_tx_places WHERE xchain = ?", (xchain,)
    )
    placed = {str(r[0]) for r in places}
    assert placed == set(_indexed_txs(db, xchain))
    blocks = 0
    for tx_id, kind, _, height in places:
        if kind == "block":
            got = _x(devnet, "avm.getBlockByHeight", {"height": int(height), "encoding": "hex"})
            block = StandardBlock.decode(decode_hex(got["block"]))
            assert tx_id in {str(t.id) for t in block.txs}
            blocks += 1
    assert blocks > 0
