"""An address's history beyond the spec's operations 5-7: its native transactions (listNative),
ERC-1155 transfers and internal transactions (listInternals), with operation 5's block range
and keyset paging (api/evm/addresses.py's Listing)."""

from __future__ import annotations

from typing import Any

from snowfield.api import render
from snowfield.api.evm.addresses import (
    Listing,
    StoredItems,
    listing_of,
    stored_listing,
    transfers_page,
)
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import ADDRESS, CHAIN_ID, END_BLOCK, PAGE_SIZE, PAGE_TOKEN, START_BLOCK
from snowfield.store import evm_queries, history_pages, token_queries
from snowfield.store.database import Database
from snowfield.store.pagination import Page


def _native(db: Database, q: Listing) -> StoredItems:
    """listNative's page from operation 5's layout (store/history_pages.py): the stored
    nativeTransaction documents, to be joined as bytes."""
    return history_pages.address_items(db, q.chain_id, q.address, **q.window(), native=True)


def _rendered_native(db: Database, q: Listing) -> tuple[list[Json], Page[Any]]:
    page = evm_queries.address_native_transactions(db, q.chain_id, q.address, **q.window())
    names = token_queries.tokens(
        db, q.chain_id, [a for t in page.items for a in (t.from_addr, t.to_addr, t.created) if a]
    )
    return [render.native_transaction(t, names) for t in page.items], page


def _internals(db: Database, q: Listing) -> tuple[list[Json], Page[Any]]:
    page = evm_queries.address_internal_txs(db, q.chain_id, q.address, **q.window())
    blocks = evm_queries.blocks_by_number(db, q.chain_id, [i.block_number for i in page.items])
    names = token_queries.tokens(
        db, q.chain_id, [a for i in page.items for a in (i.from_addr, i.to_addr)]
    )
    items = []
    for i in page.items:
        block = blocks[i.block_number]  # Invariant: a listed frame's block is indexed
        items.append(
            {
                "blockNumber": str(i.block_number),
                "blockTimestamp": block.timestamp,
                "blockHash": block.hash,
                "txHash": i.tx_hash,
                **render.internal_transaction(i, names),
            }
        )
    return items, page


list_native = stored_listing(_native, history_pages.natives_document, _rendered_native)


async def list_erc1155(ctx: Context) -> Json:
    listing = listing_of(ctx, await ctx.chain())
    items, page = await ctx.run(transfers_page, ctx.db, listing, "ERC-1155")
    return {"transactions": items, **ctx.next_page(page)}


async def list_internals(ctx: Context) -> Json:
    listing = listing_of(ctx, await ctx.chain())
    items, page = await ctx.run(_internals, ctx.db, listing)
    return {"transactions": items, **ctx.next_page(page)}


_PARAMS = (CHAIN_ID, ADDRESS, START_BLOCK, END_BLOCK, PAGE_TOKEN, PAGE_SIZE.bounded(1, 100, 10))
_BASE = "/v1/chains/{chainId}/addresses/{address}/transactions"
_TAG = "EVM address activity"
OPERATIONS = (
    Operation(
        "listNativeTransactions",
        f"{_BASE}:listNative",
        "List the transactions an address sent or received (a creation is received by the"
        " contract it creates), newest first.",
        _TAG,
        _PARAMS,
        "ListNativeTransactionsResponse",
        20,
        list_native,
    ),
    Operation(
        "listErc1155Transactions",
        f"{_BASE}:listErc1155",
        "List the ERC-1155 transfers an address sent or received, newest first.",
        _TAG,
        _PARAMS,
        "ListErc1155TransactionsResponse",
        20,
        list_erc1155,
    ),
    Operation(
        "listInternalTransactions",
        f"{_BASE}:listInternals",
        "List the internal transactions an address sent or received (value-moving CALL and"
        " CALLCODE, CREATE and CREATE2, reverted ones too), newest first.",
        _TAG,
        _PARAMS,
        "ListInternalTransactionsResponse",
        20,
        list_internals,
    ),
)
