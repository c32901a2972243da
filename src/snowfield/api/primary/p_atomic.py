"""The P-Chain's atomic memory in its balances: what the X- and C-Chain exported to the P-Chain
for these addresses that no P-Chain import took yet (PChainSharedAsset, per source chain and
asset), unlocked or locked by its locktime against the chain time or `blockTimestamp`. At a
`blockTimestamp` it is what had been exported by then and not yet imported.

PChainSharedAsset's `status` is a free string in the real models (glacier.json and the official
client); it says which of the two lists the entry is in: "unlocked" or "locked"."""

from __future__ import annotations

from snowfield.api.operation import Context, Json
from snowfield.api.primary import x_chain
from snowfield.api.primary.addressing import Target
from snowfield.store import atomic_utxos, primary_queries
from snowfield.store.atomic_utxos import AtomicUtxo
from snowfield.store.shared_memory import Shared


def _held(u: AtomicUtxo, at: int | None) -> bool:
    if at is None:
        return u.consuming_tx is None
    taken = u.consuming_timestamp is not None and u.consuming_timestamp <= at
    return u.timestamp <= at and not taken


async def atomic_memory(ctx: Context, t: Target, addresses: list[str], at: int | None) -> Json:
    pchain = t.net.pchain
    every = await ctx.run(atomic_utxos.destined, ctx.db, x_chain.chains_of(t), pchain, addresses)
    shared = [
        Shared(u.utxo_id, u.asset_id, int(u.amount), u.locktime, u.created_on)
        for u in every
        if _held(u, at)
    ]
    now = at
    if now is None and any(s.locktime for s in shared):
        now = await ctx.run(primary_queries.chain_time, ctx.db, pchain)
    assets = await x_chain.assets_of(ctx, t, [s.asset_id for s in shared])
    out = x_chain.atomic_memory(assets, shared, now or 0)
    for key, status in (("atomicMemoryUnlocked", "unlocked"), ("atomicMemoryLocked", "locked")):
        out[key] = [{**entry, "status": status} for entry in out[key]]
    return out
