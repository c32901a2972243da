"""Finds the P-Chain's genesis allocations over the node's public API (store/p_genesis.py):
after each sync, the addresses not asked yet go to `platform.getUTXOs`, and the genesis UTXOs
among the answers are kept. The X-Chain's genesis must be read first (its owners are asked)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from snowfield.indexer.extract.p_genesis import genesis_utxo
from snowfield.indexer.extract.platform import Addresses
from snowfield.store import p_genesis
from snowfield.store.database import Database

PER_CALL = 256  # addresses per platform.getUTXOs (the node takes up to 1024)


async def sync_p_genesis(
    db: Database,
    utxos_of: Callable[[list[str]], Awaitable[list[bytes]]],
    pchain: str,
    xchain: str | None,
    addresses: Addresses,
) -> None:
    found = await asyncio.to_thread(p_genesis.unprobed, db, pchain, xchain)
    if found is None:
        return
    asked, top = found
    for i in range(0, len(asked), PER_CALL):
        chunk = asked[i : i + PER_CALL]
        raw = await utxos_of([f"P-{a}" for a in chunk])
        rows = [r for r in (genesis_utxo(b, addresses) for b in raw) if r is not None]
        await asyncio.to_thread(p_genesis.write_probed, db, pchain, rows, chunk, None)
    await asyncio.to_thread(p_genesis.write_probed, db, pchain, [], [], top)
