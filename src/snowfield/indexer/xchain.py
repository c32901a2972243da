"""Follows the X-Chain's accepted txs through the node's tx index (`/ext/index/X/tx`): one
list for the DAG era and the linear era alike, in acceptance order, each batch written with
its checkpoint (store/x_chain.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol

from snowfield.errors import Unavailable
from snowfield.indexer.extract.exchange import block_places, extract_tx
from snowfield.indexer.extract.platform import Addresses
from snowfield.rpc.client import RpcError
from snowfield.store import x_chain
from snowfield.store.database import Database

log = logging.getLogger("snowfield.indexer.xchain")


class TxContainer(Protocol):
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def data(self) -> bytes: ...
    @property
    def timestamp_ns(self) -> int: ...


class TxIndex(Protocol):
    async def last_index(self) -> int: ...
    async def containers(self, start: int, count: int) -> Sequence[TxContainer]: ...


async def sync_xchain(
    db: Database,
    index: TxIndex,
    blocks: TxIndex,
    xchain: str,
    addresses: Addresses,
    batch_size: int,
) -> int:
    """Indexes every X-Chain tx the node has accepted and where each was accepted (its
    vertices, read from the indexed vertices, or its block); returns the tx index's next
    position."""
    done = await _sync_txs(db, index, xchain, addresses, batch_size)
    start = await asyncio.to_thread(x_chain.next_index, db, xchain, "vtx")
    places, after = await asyncio.to_thread(x_chain.vertex_places, db, xchain, start)
    if after > start:
        await asyncio.to_thread(x_chain.write_places, db, xchain, "vertex", places, after)
    await _sync_blocks(db, blocks, xchain, batch_size)
    return done


async def _sync_blocks(db: Database, index: TxIndex, xchain: str, batch_size: int) -> None:
    """The linear era's blocks (proposervm containers around StandardBlocks): whose txs each
    holds, at which height."""
    try:
        last = await index.last_index()
    except (RpcError, Unavailable) as err:
        log.debug("no X-Chain block index: %s", err)
        return
    start = await asyncio.to_thread(x_chain.next_index, db, xchain, "block")
    while start <= last:
        batch = await index.containers(start, batch_size)
        if not batch:
            break
        places = [p for c in batch for p in block_places(c.index, c.id, c.data, c.timestamp_ns)]
        start = batch[-1].index + 1
        await asyncio.to_thread(x_chain.write_places, db, xchain, "block", places, start)


async def _sync_txs(
    db: Database, index: TxIndex, xchain: str, addresses: Addresses, batch_size: int
) -> int:
    """The accepted txs. A node that serves no X-Chain tx index has none to give."""
    try:
        last = await index.last_index()
    except (RpcError, Unavailable) as err:
        log.debug("no X-Chain tx index: %s", err)
        return 0
    start = await asyncio.to_thread(x_chain.next_index, db, xchain)
    while start <= last:
        batch = await index.containers(start, batch_size)
        if not batch:
            break
        rows = [extract_tx(c.index, c.data, c.timestamp_ns, xchain, addresses) for c in batch]
        start = batch[-1].index + 1
        await asyncio.to_thread(x_chain.write_txs, db, xchain, rows, start)
    return start
