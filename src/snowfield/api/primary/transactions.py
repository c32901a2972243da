"""The primary network's transactions: one by hash, and the latest (all, or of addresses),
filtered by type and time, in either order. P-Chain txs render as PChainTransaction, with
their consumed and emitted UTXOs, fees, memo and type-specific fields (store/primary_documents)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import orjson

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, SORT_ORDER, Param
from snowfield.api.primary import c_chain, x_chain
from snowfield.api.primary.addressing import (
    BLOCKCHAIN,
    Target,
    addresses_for,
    target,
)
from snowfield.api.primary.balances import ADDRESSES
from snowfield.api.primary.primary_network import (
    END_TIME,
    NETWORK_PATH,
    START_TIME,
    TX_TYPES_PARAM,
)
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.ids import ID
from snowfield.store import p_address_queries, primary_documents
from snowfield.store.database import Database
from snowfield.store.p_address_queries import TxFilter
from snowfield.store.primary import PrimaryNetwork

TX_HASH = Param("txHash", "path", "The transaction's id (cb58).", required=True)


def p_documents(db: Database, net: PrimaryNetwork, tx_ids: Sequence[str]) -> list[orjson.Fragment]:
    """The PChainTransaction resources of these txs, in their order (blocking: the export
    worker calls it in its thread, the handlers through ctx.run)."""
    docs = primary_documents.render_stored(db, net.pchain, net.avax_asset, list(tx_ids))
    states = p_address_queries.staker_states(db, net.pchain, list(tx_ids))
    return [
        primary_documents.with_state(
            docs[tx], primary_documents.staker_state(*states.get(tx, (None, None)))
        )
        for tx in tx_ids
        if tx in docs
    ]


async def _documents(ctx: Context, t: Target, tx_ids: Sequence[str]) -> list[orjson.Fragment]:
    return await ctx.run(p_documents, ctx.db, t.net, tx_ids)


async def get_tx(ctx: Context) -> Json:
    t = await target(ctx)
    tx_hash = ctx.args["txHash"]
    try:
        ID.from_string(tx_hash)
    except InvalidParams:
        raise InvalidParams(f"txHash {tx_hash} is not a transaction id") from None
    if t.chain == "X":
        return await x_chain.get_tx(ctx, t, tx_hash)
    if t.chain == "C":
        return await c_chain.get_tx(ctx, t, tx_hash)
    found = await _documents(ctx, t, [tx_hash])
    if not found:
        raise NotFound(f"transaction {tx_hash} not found on the {t.name}")
    # A Fragment is the document's JSON as stored; the endpoint embeds it verbatim.
    return found[0]  # type: ignore[return-value]


async def list_txs(ctx: Context) -> Json:
    t = await target(ctx)
    raw = ctx.args.get("addresses")
    f = TxFilter(
        addresses=None if raw is None else addresses_for(t, raw),
        tx_types=ctx.args.get("txTypes"),
        start=ctx.args.get("startTimestamp"),
        end=ctx.args.get("endTimestamp"),
        desc=ctx.args["sortOrder"] == "desc",
    )
    if f.start is not None and f.end is not None and f.start > f.end:
        raise InvalidParams("startTimestamp must not be after endTimestamp")
    if t.chain == "X":
        return await x_chain.tx_list(ctx, t, f)
    if t.chain == "C":
        return await c_chain.tx_list(ctx, t, f)
    page = await ctx.run(
        p_address_queries.tx_page, ctx.db, t.net.pchain, f, ctx.after(), ctx.args["pageSize"]
    )
    txs = await _documents(ctx, t, [row[0] for row in page.items])
    chain_info = {"chainName": t.name, "network": ctx.args["network"]}
    return {**ctx.next_page(page), "transactions": txs, "chainInfo": chain_info}


_TXS = "/v1/networks/{network}/blockchains/{blockchainId}/transactions"
OPERATIONS = (
    Operation(
        "getTxByHash",
        _TXS + "/{txHash}",
        "One transaction of a primary network chain, with its inputs, outputs and fees.",
        "Primary network",
        (NETWORK_PATH, BLOCKCHAIN, TX_HASH),
        "PrimaryNetworkTransaction",
        20,
        get_tx,
    ),
    Operation(
        "listLatestPrimaryNetworkTransactions",
        _TXS,
        "The latest transactions of a primary network chain, of all or of some addresses.",
        "Primary network",
        (
            ADDRESSES,
            TX_TYPES_PARAM,
            replace(START_TIME, minimum=0),
            replace(END_TIME, minimum=0),
            PAGE_TOKEN,
            PAGE_SIZE.bounded(1, 100, 10),
            NETWORK_PATH,
            BLOCKCHAIN,
            SORT_ORDER,
        ),
        "PrimaryNetworkTransactionsResponse",
        20,
        list_txs,
    ),
)
