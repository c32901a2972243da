"""Reads the X-Chain's genesis tx (the AVAX CreateAssetTx, served by `avm.getTx` under the AVAX
asset id) once, before the X-Chain's txs: its initial state is the X-Chain's genesis
allocations, which no accepted tx created (store/x_genesis.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from snowfield.errors import Unavailable
from snowfield.indexer.extract.exchange import extract_tx
from snowfield.indexer.extract.platform import Addresses
from snowfield.rpc.client import RpcError
from snowfield.store import x_genesis
from snowfield.store.database import Database

log = logging.getLogger("snowfield.indexer.x_genesis")


async def sync_x_genesis(
    db: Database,
    x_tx: Callable[[str], Awaitable[bytes]],
    xchain: str,
    pchain: str,
    avax_asset: str,
    addresses: Addresses,
) -> None:
    if await asyncio.to_thread(x_genesis.genesis_done, db, xchain):
        return
    try:
        data = await x_tx(avax_asset)
    except (RpcError, Unavailable) as err:
        log.debug("no X-Chain genesis tx: %s", err)
        return
    when = await asyncio.to_thread(x_genesis.genesis_time, db, pchain)
    rows = extract_tx(x_genesis.GENESIS_IDX, data, when * 1_000_000_000, xchain, addresses)
    await asyncio.to_thread(x_genesis.write_genesis, db, xchain, rows)
