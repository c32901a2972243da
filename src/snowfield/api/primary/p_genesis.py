"""The P-Chain's genesis allocations in its balances and UTXO lists (store/p_genesis.py): a
genesis UTXO counts from the genesis time until the indexed tx that spends it. The UTXO page of
the P-Chain's own rows is merged with them in the same order and keyset position, as the
X-Chain's imports are (x_imports.py)."""

from __future__ import annotations

from collections.abc import Sequence

from snowfield.api.operation import Context, Json
from snowfield.api.primary.addressing import Target
from snowfield.store import p_genesis
from snowfield.store.p_address_queries import Held, UtxoFilter
from snowfield.store.p_genesis import GenesisUtxo
from snowfield.store.pagination import Key, Page
from snowfield.store.primary_documents import utxo
from snowfield.store.primary_queries import PUtxo


def _held_at(u: GenesisUtxo, at: int | None) -> bool:
    if at is None:
        return u.consuming_tx is None
    spent = u.consuming_timestamp is not None and u.consuming_timestamp <= at
    return u.timestamp <= at and not spent


async def held(ctx: Context, t: Target, addresses: Sequence[str], at: int | None) -> list[Held]:
    return held_of(await owned(ctx, t, addresses), at)


def held_of(found: Sequence[GenesisUtxo], at: int | None) -> list[Held]:
    """The allocations among `found` held at `at` (None: now), as a balance counts them."""
    return [
        Held(u.asset_id, int(u.amount), False, u.stakeable_locktime, u.locktime, None, False)
        for u in found
        if _held_at(u, at)
    ]


async def owned(ctx: Context, t: Target, addresses: Sequence[str]) -> list[GenesisUtxo]:
    """The genesis allocations these addresses were given, spent or not."""
    return await ctx.run(p_genesis.owned, ctx.db, t.net.pchain, list(addresses))


def _as_putxo(pchain: str, u: GenesisUtxo) -> PUtxo:
    return PUtxo(
        u.utxo_id, u.tx_id, u.output_index, u.asset_id, u.amount, u.addresses, u.threshold,
        u.locktime, u.stakeable_locktime, False, pchain, pchain, u.utxo_bytes, None, None, None,
        0, u.timestamp, u.consuming_tx, u.consuming_height, u.consuming_timestamp,
    )  # fmt: skip


def _key(f: UtxoFilter, u: PUtxo) -> Key:
    if f.by_amount:
        return (len(u.amount), u.amount, u.utxo_id)
    return (u.block_timestamp or 0, u.utxo_id)


def utxo_page(
    ctx: Context, t: Target, found: Sequence[GenesisUtxo], f: UtxoFilter, page: Page[PUtxo]
) -> Json:
    """The PChainUtxo page: the indexed txs' UTXOs merged with the owners' genesis ones."""
    pchain = t.net.pchain
    genesis = [_as_putxo(pchain, u) for u in found]
    after = ctx.after()
    kept = [
        u
        for u in genesis
        if (f.include_spent or u.consuming_tx is None)
        and (f.asset_id is None or u.asset_id == f.asset_id)
        and (f.min_amount is None or int(u.amount) >= f.min_amount)
        and (after is None or (_key(f, u) < after if f.desc else _key(f, u) > after))
    ]
    merged = sorted([*page.items, *kept], key=lambda u: _key(f, u), reverse=f.desc)
    limit = ctx.args["pageSize"]
    items = merged[:limit]
    more = page.next_key is not None or len(merged) > limit
    next_key = _key(f, items[-1]) if more and items else None
    rendered = [utxo(t.net.avax_asset, u) for u in items]
    chain_info = {"chainName": t.name, "network": ctx.args["network"]}
    return {**ctx.next_page(Page(items, next_key)), "utxos": rendered, "chainInfo": chain_info}
