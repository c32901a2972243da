"""The P-Chain's atomic memory in its balances: what the X- and C-Chain exported to the P-Chain
for these addresses that no P-Chain import took yet (PChainSharedAsset, per source chain and
asset), unlocked or locked by its locktime against the chain time or `blockTimestamp`. At a
`blockTimestamp` it is what had been exported by then and not yet imported.

PChainSharedAsset's `status` is a free string in the real models (glacier.json and the official
client); it says which of the two lists the entry is in: "unlocked" or "locked"."""

from __future__ import annotations

from collections.abc import Sequence

from snowfield.api.operation import Context, Json
from snowfield.api.primary import x_chain
from snowfield.api.primary.addressing import Target
from snowfield.store import atomic_utxos, primary_queries
from snowfield.store.shared_memory import Shared


async def atomic_memory(ctx: Context, t: Target, addresses: list[str], at: int | None) -> Json:
    pchain = t.net.pchain
    shared = await ctx.run(
        atomic_utxos.shared_at, ctx.db, x_chain.chains_of(t), pchain, addresses, at
    )
    now = at
    if now is None and any(s.locktime for s in shared):
        now = await ctx.run(primary_queries.chain_time, ctx.db, pchain)
    return await render(ctx, t, shared, now)


async def render(ctx: Context, t: Target, shared: Sequence[Shared], now: int | None) -> Json:
    """The two lists of this atomic memory, its locks judged at `now` (None: none is locked)."""
    if not shared:  # nothing to look up or sum (most addresses)
        return {"atomicMemoryUnlocked": [], "atomicMemoryLocked": []}
    assets = await x_chain.assets_of(ctx, t, [s.asset_id for s in shared])
    out = x_chain.atomic_memory(assets, shared, now or 0)
    for key, status in (("atomicMemoryUnlocked", "unlocked"), ("atomicMemoryLocked", "locked")):
        out[key] = [{**entry, "status": status} for entry in out[key]]
    return out
