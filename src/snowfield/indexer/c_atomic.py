"""Follows the C-Chain's atomic txs through the node's C-Chain block index
(`/ext/index/C/block`): each accepted block's extra data holds its imports and exports
(extract/atomic.py); each batch is written with its checkpoint (store/c_atomic.py)."""

from __future__ import annotations

import asyncio
import logging

from snowfield.errors import Unavailable
from snowfield.formats.ids import ID
from snowfield.indexer.extract.atomic import extract_block
from snowfield.indexer.extract.platform import Addresses
from snowfield.indexer.xchain import TxIndex
from snowfield.rpc.client import RpcError
from snowfield.store import c_atomic
from snowfield.store.database import Database

log = logging.getLogger("snowfield.indexer.c_atomic")


async def sync_c_atomic(
    db: Database,
    index: TxIndex,
    cchain: str,
    addresses: Addresses,
    batch_size: int,
    avax_asset: str,
) -> int:
    """Indexes the atomic txs of every C-Chain block the node has accepted; returns the block
    index's next position. A node that serves no C-Chain block index has none to give."""
    try:
        last = await index.last_index()
    except (RpcError, Unavailable) as err:
        log.debug("no C-Chain block index: %s", err)
        return 0
    start = await asyncio.to_thread(c_atomic.next_index, db, cchain)
    avax = ID.from_string(avax_asset)
    while start <= last:
        batch = await index.containers(start, batch_size)
        if not batch:
            break
        rows = [
            tx
            for c in batch
            for tx in extract_block(c.index, c.id, c.data, c.timestamp_ns, addresses, avax)
        ]
        start = batch[-1].index + 1
        await asyncio.to_thread(c_atomic.write_atomic, db, cchain, rows, start)
    return start
