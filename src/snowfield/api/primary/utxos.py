"""The UTXOs of primary-network addresses (GET, and the POST form with the addresses in the
body), their last activity, and which chains an address has been active on."""

from __future__ import annotations

from dataclasses import replace

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, SORT_ORDER, Param
from snowfield.api.primary import c_chain, p_genesis, x_chain
from snowfield.api.primary.addressing import (
    BLOCKCHAIN,
    FUJI_C,
    FUJI_X,
    MAINNET_C,
    MAINNET_X,
    P_ID,
    Target,
    addresses_for,
    bare_address,
    body_addresses,
    boolean,
    split_addresses,
    target,
)
from snowfield.api.primary.balances import ADDRESSES
from snowfield.api.primary.primary_network import NETWORK_PATH, indexed_network
from snowfield.errors import InvalidParams, NotFound
from snowfield.store import documents, p_address_queries, p_holdings
from snowfield.store.p_address_queries import UtxoFilter

ASSET_ID = Param("assetId", "query", "Only UTXOs of this asset.")
INCLUDE_SPENT = Param(
    "includeSpent", "query", "Also the UTXOs already consumed.", type="boolean", read=boolean
)
MIN_AMOUNT = Param(
    "minUtxoAmount", "query", "Only UTXOs of at least this amount.", type="integer", minimum=0
)
SORT_BY = Param(
    "sortBy", "query", "Order by creation time or amount.", enum=("timestamp", "amount")
)
_PAGING = PAGE_SIZE.bounded(1, 100, 10)
_UTXO_PARAMS = (
    PAGE_TOKEN,
    _PAGING,
    NETWORK_PATH,
    BLOCKCHAIN,
    ASSET_ID,
    INCLUDE_SPENT,
    MIN_AMOUNT,
    SORT_BY,
    SORT_ORDER,
)


async def _utxos(ctx: Context, t: Target, raw: str | None) -> Json:
    addresses = addresses_for(t, raw)
    f = UtxoFilter(
        include_spent=bool(ctx.args.get("includeSpent")),
        asset_id=ctx.args.get("assetId"),
        min_amount=ctx.args.get("minUtxoAmount"),
        by_amount=ctx.args.get("sortBy") == "amount",
        desc=ctx.args["sortOrder"] == "desc",
    )
    if t.chain == "X":
        return await x_chain.utxos(ctx, t, addresses, f)
    if t.chain == "C":
        return await c_chain.utxos(ctx, t, addresses, f)
    chain_info = {"chainName": t.name, "network": ctx.args["network"]}
    # The owners' unspent rows with their documents (p_holdings.py), unless a genesis
    # allocation they still hold has to be merged in (p_genesis.utxo_page).
    genesis, held = await ctx.run(
        p_holdings.owned_page, ctx.db, t.net.pchain, addresses, f, ctx.after(),
        ctx.args["pageSize"],
    )  # fmt: skip
    if held is not None:
        items = documents.joined([r[-1] for r in held.items])
        return {**ctx.next_page(held), "utxos": items, "chainInfo": chain_info}
    page = await ctx.run(
        p_address_queries.utxo_page,
        ctx.db,
        t.net.pchain,
        addresses,
        f,
        ctx.after(),
        ctx.args["pageSize"],
    )
    return p_genesis.utxo_page(ctx, t, genesis, f, page)


async def list_utxos(ctx: Context) -> Json:
    return await _utxos(ctx, await target(ctx), ctx.args.get("addresses"))


async def list_utxos_v2(ctx: Context) -> Json:
    t = await target(ctx)
    # The body is among the arguments a page token is bound to (Context's scope).
    return await _utxos(ctx, t, body_addresses(ctx))


async def _last_activity(ctx: Context, raw: str | None) -> Json:
    t = await target(ctx)
    addresses = addresses_for(t, raw)
    if t.chain == "X":
        found = await x_chain.last_activity(ctx, t, addresses)
    elif t.chain == "C":
        found = await c_chain.last_activity(ctx, t, addresses)
    else:
        found = await ctx.run(p_address_queries.last_activity, ctx.db, t.net.pchain, addresses)
    if found is None:
        raise NotFound("no activity of these addresses is indexed")
    return {
        "timestamp": found.timestamp,
        "blockNumber": str(found.height),
        "txHash": found.tx_id,
        "utxoId": found.utxo_id,
        "isConsumed": found.consumed,
        "chainName": t.name,
        # PrimaryNetworkType knows mainnet and fuji only: the test network answers as fuji.
        "network": "mainnet" if ctx.args["network"] == "mainnet" else "fuji",
    }


async def last_activity(ctx: Context) -> Json:
    return await _last_activity(ctx, ctx.args.get("addresses"))


async def last_activity_v2(ctx: Context) -> Json:
    return await _last_activity(ctx, body_addresses(ctx))


async def list_chain_ids(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    raw = ctx.args.get("addresses")
    if raw is None:
        raise InvalidParams("addresses is required")
    out = []
    for item in split_addresses(raw):
        address = bare_address(item, net.hrp)
        active = await ctx.run(p_address_queries.has_activity, ctx.db, net.pchain, address)
        on_x = await x_chain.has_activity(ctx, Target("X", net), address)
        on_c = await c_chain.has_activity(ctx, Target("C", net), address)
        ids = [P_ID] if active else []
        # BlockchainIds is closed over the real networks' ids: the test network's X- and
        # C-Chain answer as Fuji's, as `blockchainId` accepts them.
        mainnet = ctx.args["network"] == "mainnet"
        if on_x:
            ids.append(MAINNET_X if mainnet else FUJI_X)
        if on_c:
            ids.append(MAINNET_C if mainnet else FUJI_C)
        out.append({"address": address, "blockchainIds": ids})
    return {"addresses": out}


_BODY = "PrimaryNetworkAddressesBodyDto"
_UTXOS = "/v1/networks/{network}/blockchains/{blockchainId}/utxos"
_ACTIVITY = "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses"
OPERATIONS = (
    Operation(
        "getUtxosByAddresses",
        _UTXOS,
        "List the UTXOs of addresses on a primary network chain.",
        "Primary network",
        (ADDRESSES, *_UTXO_PARAMS),
        "PrimaryNetworkUtxosResponse",
        20,
        list_utxos,
    ),
    Operation(
        "getUtxosByAddressesV2",
        _UTXOS,
        "List the UTXOs of addresses given in the body (for more than a URL holds).",
        "Primary network",
        _UTXO_PARAMS,
        "PrimaryNetworkUtxosResponse",
        20,
        list_utxos_v2,
        method="POST",
        request_body=_BODY,
    ),
    Operation(
        "getLastActivityTimestampByAddresses",
        _ACTIVITY,
        "The latest UTXO creation or consumption of addresses on a primary network chain.",
        "Primary network",
        (NETWORK_PATH, BLOCKCHAIN, ADDRESSES),
        "LastActivityTimestamp",
        20,
        last_activity,
    ),
    Operation(
        "getLastActivityTimestampByAddressesV2",
        _ACTIVITY,
        "The latest UTXO activity of addresses given in the body.",
        "Primary network",
        (NETWORK_PATH, BLOCKCHAIN),
        "LastActivityTimestamp",
        20,
        last_activity_v2,
        method="POST",
        request_body=_BODY,
    ),
    Operation(
        "getChainIdsForAddresses",
        "/v1/networks/{network}/addresses:listChainIds",
        "The primary network chains on which each address has been active.",
        "Primary network",
        (NETWORK_PATH, replace(ADDRESSES, required=True)),
        "ChainAddressChainIdMapListResponse",
        20,
        list_chain_ids,
    ),
)
