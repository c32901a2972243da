"""A sync that extracts in a worker process writes exactly the rows of one that extracts on
the event loop, batch after batch (three batches in flight), and of one batch for all."""

from __future__ import annotations

import asyncio
from pathlib import Path

from snowfield.formats.platform.components import TransferableOutput
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.platform.transfer_txs import BaseTx
from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.indexer.primary_extraction import InlineExtraction, ProcessExtraction
from snowfield.store.database import Database
from snowfield.store.dump import PRIMARY, dump
from snowfield.testing import serve_devnet
from tests.api.test_primary_network import _issue, _wallet
from tests.chains.platform.wallet import KEY2, owner

BLOCKS = 12


def _index(base: str, path: Path, *, batch_size: int, process_backlog: int) -> dict[str, object]:
    db = Database(str(path))
    db.migrate()

    async def run() -> int:
        source = PlatformSource(base)
        try:
            indexer = PrimaryIndexer(
                db, source, batch_size=batch_size, process_backlog=process_backlog
            )
            return await indexer.sync()
        finally:
            await source.aclose()

    try:
        assert asyncio.run(run()) == BLOCKS  # the next index
        return dump(db, PRIMARY)
    finally:
        db.close()


def test_worker_process_extraction_writes_the_same_rows(tmp_path: Path) -> None:
    with serve_devnet() as devnet:
        wallet = _wallet(devnet)
        for i in range(BLOCKS):
            out = TransferableOutput(wallet.asset_id, TransferOutput(2_000 + i, owner(KEY2)))
            _issue(devnet, wallet.build(lambda base: BaseTx(base), 2_000 + i, outputs=[out]))
        whole = _index(devnet.base, tmp_path / "whole.db", batch_size=256, process_backlog=10**9)
        inline = _index(devnet.base, tmp_path / "inline.db", batch_size=3, process_backlog=10**9)
        worker = _index(devnet.base, tmp_path / "worker.db", batch_size=3, process_backlog=0)
    assert len(whole["p_blocks"]) == BLOCKS + 1  # and the genesis block
    assert inline == whole
    assert worker == whole


def test_the_backlog_chooses_where_extraction_runs(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "x.db"))
    source = PlatformSource("http://127.0.0.1:9")  # never asked: the network is given
    indexer = PrimaryIndexer(db, source, process_backlog=100)
    from snowfield.indexer.extract.platform import Addresses
    from snowfield.store.primary import PrimaryNetwork

    indexer.network = PrimaryNetwork("P", 12345, "local", None, None, "A")
    indexer.addresses = Addresses("local")
    small, large = indexer._extraction(99), indexer._extraction(100)
    try:
        assert isinstance(small, InlineExtraction)
        assert isinstance(large, ProcessExtraction)
    finally:
        small.close()
        large.close()
        asyncio.run(source.aclose())
        db.close()
