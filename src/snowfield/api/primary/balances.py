"""The balances of primary-network addresses on a chain: the P-Chain's unlocked and locked,
staked and unstaked AVAX per asset, from its indexed UTXOs, now or at a `blockTimestamp`."""

from __future__ import annotations

from collections.abc import Iterable

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import Param
from snowfield.api.primary import p_atomic, p_genesis, x_chain
from snowfield.api.primary.addressing import BLOCKCHAIN, Target, addresses_for, target
from snowfield.api.primary.primary_network import NETWORK_PATH
from snowfield.store import p_address_queries, p_balance_now
from snowfield.store.p_address_queries import Held, p_kind
from snowfield.store.primary_documents import asset

# PChainBalance's lists, each required (an empty list when nothing is in it).
P_KINDS = (
    "unlockedUnstaked",
    "unlockedStaked",
    "lockedPlatform",
    "lockedStakeable",
    "lockedStaked",
    "pendingStaked",
    "atomicMemoryUnlocked",
    "atomicMemoryLocked",
)

ADDRESSES = Param(
    "addresses",
    "query",
    "Comma-separated addresses of the chain (with or without its P-/X-/C- prefix), at most 64.",
)
BLOCK_TIMESTAMP = Param(
    "blockTimestamp",
    "query",
    "The balances at this unix time (default: the latest indexed state).",
    type="integer",
)


def aggregate(avax_asset: str, utxos: Iterable[Held]) -> list[Json]:
    """AggregatedAssetAmount per asset: the sum and the UTXO count, in asset order."""
    sums: dict[str, tuple[int, int]] = {}
    for u in utxos:
        amount, count = sums.get(u.asset_id, (0, 0))
        sums[u.asset_id] = (amount + u.amount, count + u.count)
    return [
        {**asset(avax_asset, a, amount), "utxoCount": count}
        for a, (amount, count) in sorted(sums.items())
    ]


def p_balances(avax_asset: str, held: Iterable[Held], now: int | None) -> Json:
    """PChainBalance's lists of these UTXOs judged at `now`."""
    kinds: dict[str, list[Held]] = {k: [] for k in P_KINDS}
    for u in held:
        kinds[p_kind(u, now or 0)].append(u)
    return {k: aggregate(avax_asset, v) if v else [] for k, v in kinds.items()}


async def get_balances(ctx: Context) -> Json:
    t = await target(ctx)
    addresses = addresses_for(t, ctx.args.get("addresses"))
    at = ctx.args.get("blockTimestamp")
    if t.chain == "X":
        return await x_chain.balances(ctx, t, addresses, at)
    if t.chain == "C":
        return await x_chain.c_balances(ctx, t, addresses, at)
    if at is None:
        balances = await _p_balances_now(ctx, t, addresses)
    else:
        balances = await _p_balances_at(ctx, t, addresses, at)
    chain_info = {"chainName": t.name, "network": ctx.args["network"]}
    return {"balances": balances, "chainInfo": chain_info}


async def _p_balances_now(ctx: Context, t: Target, addresses: list[str]) -> Json:
    """Now: the owners' rows kept by the writer (store/p_holdings.py), their genesis
    allocations and atomic memory, in one store call (store/p_balance_now.py)."""
    found = await ctx.run(p_balance_now.read, ctx.db, x_chain.chains_of(t), addresses)
    # The genesis allocations are not UTXOs of an indexed tx (api/primary/p_genesis.py).
    held = [*found.held, *p_genesis.held_of(found.genesis, None)]
    balances = p_balances(t.net.avax_asset, held, found.chain_time)
    balances.update(await p_atomic.render(ctx, t, found.shared, found.chain_time))
    return balances


async def _p_balances_at(ctx: Context, t: Target, addresses: list[str], at: int) -> Json:
    held = await ctx.run(p_address_queries.held_utxos, ctx.db, t.net.pchain, addresses, at)
    genesis = await p_genesis.held(ctx, t, addresses, at)
    balances = p_balances(t.net.avax_asset, [*held, *genesis], at)
    balances.update(await p_atomic.atomic_memory(ctx, t, addresses, at))
    return balances


OPERATIONS = (
    Operation(
        "getBalancesByAddresses",
        "/v1/networks/{network}/blockchains/{blockchainId}/balances",
        "The balances of addresses on a primary network chain, per asset, now or at a time.",
        "Primary network",
        (NETWORK_PATH, BLOCKCHAIN, ADDRESSES, BLOCK_TIMESTAMP),
        "PrimaryNetworkBalancesResponse",
        20,
        get_balances,
    ),
)
