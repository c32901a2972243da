"""The C-Chain's atomic txs, followed through the node's C-Chain block index over the devnet's
X→C exports (the X demo) and C→P exports (the atomic demo): every atomic tx is the one
avax.getAtomicTx serves, at its block height, and the UTXOs the X-Chain exported to C that no
C-Chain import took are those avax.getUTXOs lists, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.platform.components import UTXO
from snowfield.store import c_atomic
from snowfield.store.database import Database
from snowfield.testing import RunningNode, open_database
from tests.conftest import _url
from tests.helpers import sync_primary
from tests.indexer.conftest import XDemo
from tests.node.test_node_apis import service

Indexed = tuple[RunningNode, Database, str, str, list[str]]


def _c(devnet: RunningNode, method: str, params: dict[str, Any]) -> Any:
    reply = service(devnet.base + "/ext/bc/C/avax", method, params)
    assert "error" not in reply, reply
    return reply["result"]


_sync = sync_primary


@pytest.fixture(scope="module")
def indexed(x_demo: XDemo, x_demo_indexed: Database) -> Indexed:
    """The package's X demo (shared with the X-Chain index tests), indexed."""
    return x_demo.devnet, x_demo_indexed, x_demo.xchain, x_demo.cchain, x_demo.addresses("C")


def test_every_atomic_tx_is_the_nodes(indexed: Indexed) -> None:
    devnet, db, _, cchain, _ = indexed
    rows = db.query(
        "SELECT tx_id, tx_type, height, tx_bytes FROM c_atomic_txs WHERE cchain = ?", (cchain,)
    )
    assert {r[1] for r in rows} >= {"ExportTx"}
    for tx_id, _, height, tx_bytes in rows:
        node = _c(devnet, "avax.getAtomicTx", {"txID": tx_id, "encoding": "hex"})
        assert "0x" + decode_hex(node["tx"]).hex() == tx_bytes  # the node appends a checksum
        assert int(node["blockHeight"]) == int(height)
    last = service(devnet.base + "/ext/index/C/block", "index.getLastAccepted", {"encoding": "hex"})
    assert c_atomic.next_index(db, cchain) == int(last["result"]["index"]) + 1


def test_shared_memory_for_c_equals_get_utxos(indexed: Indexed) -> None:
    devnet, db, xchain, cchain, owners = indexed
    seen = 0
    for owner in owners:
        node = _c(
            devnet,
            "avax.getUTXOs",
            {"addresses": [owner], "sourceChain": "X", "encoding": "hex", "limit": 1024},
        )
        want = {str(UTXO.decode(decode_hex(u)).id) for u in node["utxos"]}
        got = {
            str(r[0])
            for r in db.query(
                "SELECT u.utxo_id FROM x_utxos u WHERE u.xchain = ? AND u.consumed_on = ?"
                " AND (',' || u.addresses || ',') LIKE ? AND NOT EXISTS (SELECT 1 FROM"
                " c_atomic_imports i WHERE i.cchain = u.consumed_on AND i.utxo_id = u.utxo_id)",
                (xchain, cchain, f"%,{owner[2:]},%"),
            )
        }
        assert got == want, owner
        seen += len(want)
    assert seen > 0


def test_exports_to_p_are_recorded_for_the_p_chain(indexed: Indexed) -> None:
    _, db, _, cchain, _ = indexed
    exported = db.query(
        "SELECT COUNT(*) FROM c_atomic_utxos WHERE cchain = ? AND consumed_on = ?",
        (cchain, "11111111111111111111111111111111LpoYY"),
    )
    assert int(exported[0][0]) == 2  # one a round of the atomic demo


def test_unwind_removes_later_blocks(
    indexed: Indexed, tmp_path_factory: pytest.TempPathFactory
) -> None:
    devnet, db, _, cchain, _ = indexed
    with open_database(_url("sqlite", tmp_path_factory.mktemp("cu"))) as other:
        asyncio.run(_sync(other, devnet.base))
        heights = sorted(int(r[0]) for r in other.query("SELECT height FROM c_atomic_txs"))
        cut = heights[len(heights) // 2]
        c_atomic.unwind(other, cchain, cut, cut - 1)
        assert max(int(r[0]) for r in other.query("SELECT height FROM c_atomic_txs")) < cut
        late = other.query("SELECT COUNT(*) FROM c_atomic_utxos WHERE height >= ?", (cut,))
        assert int(late[0][0]) == 0
        asyncio.run(_sync(other, devnet.base))
        assert other.query("SELECT tx_id FROM c_atomic_txs ORDER BY tx_id") == db.query(
            "SELECT tx_id FROM c_atomic_txs ORDER BY tx_id"
        )
