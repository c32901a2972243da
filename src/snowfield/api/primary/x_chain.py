"""The X-Chain on the primary network's address operations (balances, UTXOs, last activity,
transactions) and its own: an asset, and an asset's transactions. Read from the X-Chain index
(store/x_address_queries.py); rendered by x_documents."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, Param
from snowfield.api.primary import x_imports
from snowfield.api.primary.addressing import BLOCKCHAIN, Target, target
from snowfield.api.primary.primary_network import (
    END_TIME,
    NETWORK_PATH,
    START_TIME,
    TX_TYPES_PARAM,
)
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.ids import ID
from snowfield.store import (
    atomic_utxos,
    primary_queries,
    shared_memory,
    x_address_queries,
    x_documents,
)
from snowfield.store.database import Database
from snowfield.store.p_address_queries import LastActivity, TxFilter, UtxoFilter
from snowfield.store.pagination import Page
from snowfield.store.shared_memory import Shared
from snowfield.store.x_address_queries import XTx
from snowfield.store.x_documents import Assets

ASSET_ID = Param("assetId", "path", "The asset's id (cb58).", required=True)


def xchain_of(t: Target) -> str:
    if t.net.xchain is None:
        raise NotFound("the indexed node has no X-Chain")
    return t.net.xchain


async def _assets(ctx: Context, t: Target, asset_ids: Sequence[str]) -> Assets:
    known = await ctx.run(x_address_queries.assets, ctx.db, xchain_of(t), list(asset_ids))
    return Assets(t.net.avax_asset, known)


async def assets_of(ctx: Context, t: Target, asset_ids: Sequence[str]) -> Assets:
    """Asset facts from the X-Chain's index, or AVAX's alone when the node has no X-Chain."""
    if t.net.xchain is None or not asset_ids:
        return Assets(t.net.avax_asset, {})
    return await _assets(ctx, t, asset_ids)


def _aggregate(assets: Assets, entries: Sequence[tuple[str, int]]) -> list[Json]:
    sums: dict[str, tuple[int, int]] = {}
    for asset_id, amount in entries:
        total, count = sums.get(asset_id, (0, 0))
        sums[asset_id] = (total + amount, count + 1)
    return [
        {**assets.amount(a, total), "utxoCount": count}
        for a, (total, count) in sorted(sums.items())
    ]


async def balances(ctx: Context, t: Target, addresses: list[str], at: int | None) -> Json:
    """XChainBalances: fungible UTXOs held, locked while their locktime is ahead of the chain
    time (or of `blockTimestamp`), and the atomic memory the P- and C-Chain exported to them."""
    xchain = xchain_of(t)
    held = await ctx.run(x_address_queries.held, ctx.db, xchain, addresses, at)
    held = [u for u in held if u.output_type == "SECP256K1"]
    shared = await ctx.run(atomic_utxos.shared_at, ctx.db, chains_of(t), xchain, addresses, at)
    now = at
    if now is None and (any(u.locktime for u in held) or any(s.locktime for s in shared)):
        now = await ctx.run(primary_queries.chain_time, ctx.db, t.net.pchain)
    assets = await _assets(ctx, t, [u.asset_id for u in held] + [s.asset_id for s in shared])
    locked = [(u.asset_id, int(u.amount)) for u in held if u.locktime > (now or 0)]
    unlocked = [(u.asset_id, int(u.amount)) for u in held if u.locktime <= (now or 0)]
    out: Json = {
        "locked": _aggregate(assets, locked),
        "unlocked": _aggregate(assets, unlocked),
    }
    out.update(atomic_memory(assets, shared, now or 0))
    return {"balances": out, "chainInfo": {"chainName": t.name, "network": ctx.args["network"]}}


def chains_of(t: Target) -> shared_memory.Chains:
    return shared_memory.Chains(t.net.pchain, t.net.xchain, t.net.cchain)


def atomic_memory(assets: Assets, shared: Sequence[Shared], now: int) -> Json:
    """atomicMemoryUnlocked / atomicMemoryLocked: per source chain and asset."""
    out: Json = {}
    for key, is_locked in (("atomicMemoryUnlocked", False), ("atomicMemoryLocked", True)):
        by_chain: dict[str, list[tuple[str, int]]] = {}
        for s in shared:
            if (s.locktime > now) == is_locked:
                by_chain.setdefault(s.source_chain, []).append((s.asset_id, s.amount))
        out[key] = [
            {**entry, "sharedWithChainId": chain}
            for chain, entries in sorted(by_chain.items())
            for entry in _aggregate(assets, entries)
        ]
    return out


async def c_balances(ctx: Context, t: Target, addresses: list[str], at: int | None) -> Json:
    """CChainAtomicBalances: what the P- and X-Chain exported to the C-Chain for these
    addresses that no C-Chain import took yet (by then, at a `blockTimestamp`)."""
    if t.net.cchain is None:
        raise NotFound("the indexed node has no C-Chain")
    shared = await ctx.run(
        atomic_utxos.shared_at, ctx.db, chains_of(t), t.net.cchain, addresses, at
    )
    now = at
    if now is None and any(s.locktime for s in shared):
        now = await ctx.run(primary_queries.chain_time, ctx.db, t.net.pchain)
    known = {}
    if t.net.xchain is not None:
        known = await ctx.run(
            x_address_queries.assets, ctx.db, t.net.xchain, [s.asset_id for s in shared]
        )
    balances = atomic_memory(Assets(t.net.avax_asset, known), shared, now or 0)
    chain_info = {"chainName": t.name, "network": ctx.args["network"]}
    return {"balances": balances, "chainInfo": chain_info}


async def utxos(ctx: Context, t: Target, addresses: list[str], f: UtxoFilter) -> Json:
    xchain = xchain_of(t)
    page = await ctx.run(
        x_address_queries.utxo_page, ctx.db, xchain, addresses, f, ctx.after(), ctx.args["pageSize"]
    )
    assets = await _assets(ctx, t, [u.asset_id for u in page.items])
    if f.include_spent:
        # The UTXOs its imports took from shared memory are spent UTXOs of the X-Chain too.
        return await x_imports.utxos_with_imported(ctx, t, addresses, f, page)
    items = [x_documents.utxo(assets, xchain, u) for u in page.items]
    chain_info = {"chainName": t.name, "network": ctx.args["network"]}
    return {**ctx.next_page(page), "utxos": items, "chainInfo": chain_info}


async def last_activity(ctx: Context, t: Target, addresses: list[str]) -> LastActivity | None:
    return await ctx.run(x_address_queries.last_activity, ctx.db, xchain_of(t), addresses)


async def has_activity(ctx: Context, t: Target, address: str) -> bool:
    if t.net.xchain is None:
        return False
    return await ctx.run(x_address_queries.has_activity, ctx.db, t.net.xchain, address)


def documents_of(db: Database, t: Target, txs: Sequence[XTx]) -> list[Json]:
    """The XChainTransaction resources of these txs (blocking: the export worker calls it in
    its thread, the handlers through ctx.run)."""
    xchain = xchain_of(t)
    ids = [tx.tx_id for tx in txs]
    emitted, consumed = x_address_queries.tx_utxos(db, xchain, ids)
    places = x_address_queries.places(db, xchain, ids)
    asset_ids = [u.asset_id for group in (emitted, consumed) for us in group.values() for u in us]
    assets = Assets(t.net.avax_asset, x_address_queries.assets(db, xchain, asset_ids + ids))
    docs = [
        x_documents.transaction(
            assets, xchain, tx, emitted[tx.tx_id], consumed[tx.tx_id], places[tx.tx_id]
        )
        for tx in txs
    ]
    imports = [tx.tx_id for tx in txs if tx.tx_type == "ImportTx"]
    if imports:
        x_imports.add_imported(db, t, assets, docs, imports)
    return docs


async def documents(ctx: Context, t: Target, txs: Sequence[XTx]) -> list[Json]:
    return await ctx.run(documents_of, ctx.db, t, txs)


async def get_tx(ctx: Context, t: Target, tx_hash: str) -> Json:
    found = await ctx.run(x_address_queries.tx, ctx.db, xchain_of(t), tx_hash)
    if found is None:
        raise NotFound(f"transaction {tx_hash} not found on the {t.name}")
    return (await documents(ctx, t, [found]))[0]


async def tx_list(ctx: Context, t: Target, f: TxFilter, asset_id: str | None = None) -> Json:
    page: Page[XTx] = await ctx.run(
        x_address_queries.tx_page,
        ctx.db,
        xchain_of(t),
        f,
        ctx.after(),
        ctx.args["pageSize"],
        asset_id,
    )
    txs = await documents(ctx, t, page.items)
    chain_info = {"chainName": t.name, "network": ctx.args["network"]}
    return {**ctx.next_page(page), "transactions": txs, "chainInfo": chain_info}


async def _x_target(ctx: Context) -> Target:
    t = await target(ctx)
    if t.chain != "X":
        raise NotFound(f"assets are X-Chain resources: the {t.name} has none")
    return t


def _asset_id(ctx: Context) -> str:
    asset_id = str(ctx.args["assetId"])
    try:
        ID.from_string(asset_id)
    except InvalidParams:
        raise InvalidParams(f"assetId {asset_id} is not an asset id") from None
    return asset_id


async def get_asset(ctx: Context) -> Json:
    t = await _x_target(ctx)
    asset_id = _asset_id(ctx)
    assets = await _assets(ctx, t, [asset_id])
    found = assets.known.get(asset_id)
    if found is None:
        raise NotFound(f"asset {asset_id} not found on the {t.name}")
    return assets.details(found)


async def list_asset_txs(ctx: Context) -> Json:
    t = await _x_target(ctx)
    asset_id = _asset_id(ctx)
    known = await ctx.run(x_address_queries.assets, ctx.db, xchain_of(t), [asset_id])
    if asset_id not in known and asset_id != t.net.avax_asset:
        raise NotFound(f"asset {asset_id} not found on the {t.name}")
    f = TxFilter(
        addresses=None,
        tx_types=ctx.args.get("txTypes"),
        start=ctx.args.get("startTimestamp"),
        end=ctx.args.get("endTimestamp"),
        desc=True,
    )
    if f.start is not None and f.end is not None and f.start > f.end:
        raise InvalidParams("startTimestamp must not be after endTimestamp")
    return await tx_list(ctx, t, f, asset_id)


_ASSETS = "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}"
OPERATIONS = (
    Operation(
        "getAssetDetails",
        _ASSETS,
        "An X-Chain asset: name, symbol, denomination, type, cap and creation time.",
        "Primary network",
        (NETWORK_PATH, BLOCKCHAIN, ASSET_ID),
        "XChainAssetDetails",
        20,
        get_asset,
    ),
    Operation(
        "listAssetTransactions",
        _ASSETS + "/transactions",
        "The X-Chain transactions that create, emit or consume an asset, newest first.",
        "Primary network",
        (
            TX_TYPES_PARAM,
            replace(START_TIME, minimum=0),
            replace(END_TIME, minimum=0),
            PAGE_TOKEN,
            PAGE_SIZE.bounded(1, 100, 10),
            NETWORK_PATH,
            BLOCKCHAIN,
            ASSET_ID,
        ),
        "ListXChainTransactionsResponse",
        20,
        list_asset_txs,
    ),
)
