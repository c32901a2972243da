"""The indexer learns the blockchain id of the chain it indexes over the node's info API."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from snowfield.indexer.identity import info_target, learn_blockchain_id
from snowfield.store import chain_queries
from snowfield.testing import free_port, open_database, serve_devnet


def test_info_target_of_avalanchego_paths_only() -> None:
    assert info_target("http://h:9650/ext/bc/C/rpc") == ("http://h:9650/ext/info", "C")
    assert info_target("http://h:8545") is None


def test_blockchain_id_from_the_node_or_none(tmp_path: Path) -> None:
    with serve_devnet() as node:
        c_chain = node.node.ids.c_chain
        assert asyncio.run(learn_blockchain_id(node.rpc)) == c_chain
        by_id = f"{node.base}/ext/bc/{c_chain}/rpc"
        assert asyncio.run(learn_blockchain_id(by_id)) == c_chain
        db = tmp_path / "i.db"
        command = [sys.executable, "-m", "snowfield", "index", "--rpc", node.rpc]
        command += ["--db", str(db), "--until", "0", "--log-level", "warn"]
        subprocess.run(command, check=True, timeout=120)
        with open_database(str(db)) as store:
            found = chain_queries.find_chain(store, c_chain)
            assert found is not None and found.chain_id == 43112
    # No node there (or one without /ext/info): no id, the store derives one.
    nowhere = f"http://127.0.0.1:{free_port()}/ext/bc/C/rpc"
    assert asyncio.run(learn_blockchain_id(nowhere)) is None
