"""The C-Chain's atomic txs, followed through the node's C-Chain block index over the devnet's
X→C exports (the X demo) and C→P exports (the atomic demo): every atomic tx is the one
avax.getAtomicTx serves, at its block height, and the UTXOs the X-Chain exported to C that no
C-Chain import took are those avax.getUTXOs lists, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.components import UTXO
from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.store import c_atomic
from snowfield.store.database import Database
from snowfield.testing import RunningNode, open_database, serve_devnet
from snowfield.workload.atomic_demo import run_atomic_demo
from snowfield.workload.platform_demo import demo_secret
from snowfield.workload.x_demo import run_x_demo
from tests.conftest import _db_kinds, _url
from tests.node.test_node_apis import service

Indexed = tuple[RunningNode, Database, str, str, list[str]]


def _c(devnet: RunningNode, method: str, params: dict[str, Any]) -> Any:
    reply = service(devnet.base + "/ext/bc/C/avax", method, params)
    assert "error" not in reply, reply
    return reply["result"]


async def _sync(db: Database, base: str) -> None:
    source = PlatformSource(base)
    try:
        await PrimaryIndexer(db, source, batch_size=3).sync()
    finally:
        await source.aclose()


@pytest.fixture(scope="module", params=_db_kinds())
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    with serve_devnet(validators=1) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        secret = demo_secret(keys)
        signers = [secret, *keys[:2]]
        quiet = {"interval": 0, "stop": None, "log": lambda _line: None}
        asyncio.run(run_x_demo(devnet.base, signers, rounds=4, **quiet))  # type: ignore[arg-type]
        asyncio.run(run_atomic_demo(devnet.base, secret, rounds=2, **quiet))  # type: ignore[arg-type]
        info = service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]
        hrp = hrp_for_network(int(info["networkID"]))
        ids = {
            alias: service(devnet.base + "/ext/info", "info.getBlockchainID", {"alias": alias})[
                "result"
            ]["blockchainID"]
            for alias in ("X", "C")
        }
        owners = [
            format_address("C", hrp, ShortID.from_public_key(public_key_of(s)).raw) for s in signers
        ]
        with open_database(_url(request.param, tmp_path_factory.mktemp("ca"))) as db:
            asyncio.run(_sync(db, devnet.base))
            yield devnet, db, str(ids["X"]), str(ids["C"]), owners


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
