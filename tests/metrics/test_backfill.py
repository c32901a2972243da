"""A store indexed without rollups (as by a version before metrics) gets them built from its
rows when an indexer with rollups starts on it: the same rollups as indexing with them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from snowfield.indexer.calls import Calls
from snowfield.indexer.indexer import Indexer
from snowfield.rpc.client import DocumentFetcher, RpcClient
from snowfield.store.database import Database
from snowfield.store.dump import dump
from snowfield.testing import index_node, open_database, run_demo_rounds, serve_devnet
from tests.metrics.test_kill import ROLLUPS


def index_without_rollups(db: Database, rpc: str) -> None:
    async def go() -> None:
        fetcher = DocumentFetcher()
        async with RpcClient(rpc) as client:
            indexer = Indexer(db, Calls(client), fetcher, 43112, batch_blocks=9, rollups=False)
            await indexer.sync()
        await fetcher.aclose()

    asyncio.run(go())


def test_rollups_are_built_for_blocks_indexed_before_them(tmp_path: Path) -> None:
    with serve_devnet() as node:
        run_demo_rounds(node.rpc, 2)
        with open_database(str(tmp_path / "with.db")) as db:
            index_node(db, node.rpc, batch_blocks=9)
            expected = dump(db, ROLLUPS)
        with open_database(str(tmp_path / "later.db")) as db:
            index_without_rollups(db, node.rpc)
            assert dump(db, ROLLUPS) == {name: [] for name in ROLLUPS}
            index_node(db, node.rpc, batch_blocks=9)  # nothing new to index: only the backfill
            assert dump(db, ROLLUPS) == expected
    assert expected["rollups"] and expected["rollup_members"]
