"""Operations 5 to 8: an address's transactions, ERC-20 and ERC-721 transfers, ERC-721 holdings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from snowfield.api import render
from snowfield.api.operation import Body, Context, Json, Operation
from snowfield.api.params import (
    ADDRESS,
    CHAIN_ID,
    CONTRACT_ADDRESS,
    END_BLOCK,
    PAGE_SIZE,
    PAGE_TOKEN,
    SORT_ORDER,
    START_BLOCK,
)
from snowfield.errors import InvalidParams
from snowfield.store import documents, evm_queries, history_pages, token_queries
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page
from snowfield.store.rows import ChainRow, InternalTxRow, TransferRow


@dataclass(slots=True)
class Listing:
    """One address listing request, as the worker thread needs it (one a request: not frozen,
    see pagination.Page)."""

    chain_id: int
    address: str
    start: int | None
    end: int | None
    descending: bool
    after: Key | None
    size: int

    def window(self) -> dict[str, Any]:
        """The keyset arguments of the store's listing queries."""
        return {
            "start_block": self.start,
            "end_block": self.end,
            "descending": self.descending,
            "after": self.after,
            "limit": self.size,
        }


def listing_of(ctx: Context, chain: ChainRow) -> Listing:
    """The listing a request names (startBlock, endBlock, sortOrder, paging)."""
    a = ctx.args
    start, end = a.get("startBlock"), a.get("endBlock")
    if start is not None and end is not None and end < start:
        raise InvalidParams("endBlock must not be less than startBlock")
    descending = a.get("sortOrder", "desc") == "desc"
    return Listing(chain.chain_id, a["address"], start, end, descending, ctx.after(), a["pageSize"])


def _nft_ids(transfers: list[TransferRow]) -> list[tuple[str, int]]:
    return [(t.token, t.token_id) for t in transfers if t.token_id is not None]


def _items(db: Database, q: Listing) -> StoredItems:
    """Operation 5's page from the read model: one query for the stored documents, to be
    joined as bytes (store/history_pages.py)."""
    return history_pages.address_items(db, q.chain_id, q.address, **q.window())


def _rendered_transactions(db: Database, q: Listing) -> tuple[list[Json], Page[Any]]:
    """Operation 5's page rendered from the rows (what the documents hold, computed now)."""
    page = evm_queries.address_transactions(
        db,
        q.chain_id,
        q.address,
        **q.window(),
    )
    keys = [(t.block_number, t.tx_index) for t in page.items]
    transfers = evm_queries.transfers_in_txs(db, q.chain_id, q.address, keys)
    internals = evm_queries.internal_txs_in_txs(db, q.chain_id, q.address, keys)
    names = token_queries.tokens(
        db,
        q.chain_id,
        [a for t in page.items for a in (t.from_addr, t.to_addr, t.created) if a]
        + [a for t in transfers for a in (t.from_addr, t.to_addr, t.token)]
        + [a for i in internals for a in (i.from_addr, i.to_addr)],
    )
    nfts = token_queries.nfts(db, q.chain_id, _nft_ids(transfers))
    by_tx: dict[tuple[int, int], tuple[list[TransferRow], list[InternalTxRow]]] = {
        key: ([], []) for key in keys
    }
    for t in transfers:
        by_tx[(t.block_number, t.tx_index)][0].append(t)
    for i in internals:
        by_tx[(i.block_number, i.tx_index)][1].append(i)
    items = [
        {
            "nativeTransaction": render.native_transaction(tx, names),
            **documents.sublists(*by_tx[(tx.block_number, tx.tx_index)], names, nfts),
        }
        for tx in page.items
    ]
    return items, page


def transfers_page(db: Database, q: Listing, erc_type: str) -> tuple[list[Json], Page[Any]]:
    page = evm_queries.address_transfers(
        db,
        q.chain_id,
        q.address,
        erc_type,
        **q.window(),
    )
    hashes = evm_queries.block_hashes(db, q.chain_id, [t.block_number for t in page.items])
    names = token_queries.tokens(
        db, q.chain_id, [a for t in page.items for a in (t.from_addr, t.to_addr, t.token)]
    )
    nfts = token_queries.nfts(db, q.chain_id, _nft_ids(page.items))
    items = [
        render.listed_transfer(t, hashes.get(t.block_number, ""), names, nfts) for t in page.items
    ]
    return items, page


StoredItems = Page[tuple[int, int, bytes | None, bytes | None]]


def stored_listing(
    read: Callable[[Database, Listing], StoredItems],
    document: Callable[[StoredItems, bytes], bytes | None],
    render: Callable[[Database, Listing], tuple[list[Json], Page[Any]]],
) -> Callable[[Context], Awaitable[Body]]:
    """The handler of an address's listing kept as stored documents (store/history_pages.py):
    the page `read`, its answer's bytes joined by `document`, or, when a row's document is
    missing (see store/read_model.py), the page `render`ed from the rows. A handler made here
    rather than a helper it awaits: one coroutine less a request."""

    async def handler(ctx: Context) -> Body:
        listing = listing_of(ctx, await ctx.chain())
        page = await ctx.run(read, ctx.db, listing)
        body = document(page, ctx.page_end(page))
        if body is not None:
            return body
        items, rendered = await ctx.run(render, ctx.db, listing)
        return {"transactions": items, **ctx.next_page(rendered)}

    return handler


list_transactions = stored_listing(
    _items, history_pages.transactions_document, _rendered_transactions
)


async def list_erc20(ctx: Context) -> Json:
    listing = listing_of(ctx, await ctx.chain())
    items, page = await ctx.run(transfers_page, ctx.db, listing, "ERC-20")
    return {"transactions": items, **ctx.next_page(page)}


async def list_erc721(ctx: Context) -> Json:
    listing = listing_of(ctx, await ctx.chain())
    items, page = await ctx.run(transfers_page, ctx.db, listing, "ERC-721")
    return {"transactions": items, **ctx.next_page(page)}


def _holdings(
    db: Database, chain: ChainRow, owner: str, contract: str | None, after: Key | None, size: int
) -> tuple[Json, Page[Any]]:
    page = token_queries.owned_nfts(
        db, chain.chain_id, owner, contract=contract, after=after, limit=size
    )
    names = token_queries.tokens(db, chain.chain_id, [n.token for n in page.items])
    balance = token_queries.native_balance(db, chain.chain_id, owner)
    body = {
        "nativeTokenBalance": render.native_balance(chain, balance),
        "erc721TokenBalances": [
            {
                **render.erc721_token(n.token, n.token_id, names, n),
                "ownerAddress": owner,
                "chainId": str(chain.chain_id),
            }
            for n in page.items
        ],
    }
    return body, page


async def list_erc721_balances(ctx: Context) -> Json:
    chain = await ctx.chain()
    a = ctx.args
    after = ctx.after()
    body, page = await ctx.run(
        _holdings, ctx.db, chain, a["address"], a["contractAddress"], after, a["pageSize"]
    )
    return {**body, **ctx.next_page(page)}


_LIST = PAGE_SIZE.bounded(1, 100, 10)
_RANGE = (START_BLOCK, END_BLOCK)
OPERATIONS = (
    Operation(
        "listTransactions",
        "/v1/chains/{chainId}/addresses/{address}/transactions",
        "List the transactions involving an address, with the transfers and internal"
        " transactions in them that the address sent or received.",
        "EVM address activity",
        (CHAIN_ID, ADDRESS, PAGE_TOKEN, _LIST, *_RANGE, SORT_ORDER),
        "ListTransactionsResponse",
        20,
        list_transactions,
    ),
    Operation(
        "listErc20Transactions",
        "/v1/chains/{chainId}/addresses/{address}/transactions:listErc20",
        "List the ERC-20 transfers an address sent or received, newest first.",
        "EVM address activity",
        (CHAIN_ID, ADDRESS, PAGE_TOKEN, _LIST, *_RANGE),
        "ListErc20TransactionsResponse",
        20,
        list_erc20,
    ),
    Operation(
        "listErc721Transactions",
        "/v1/chains/{chainId}/addresses/{address}/transactions:listErc721",
        "List the ERC-721 transfers an address sent or received, newest first.",
        "EVM address activity",
        (CHAIN_ID, ADDRESS, PAGE_TOKEN, _LIST, *_RANGE),
        "ListErc721TransactionsResponse",
        20,
        list_erc721,
    ),
    Operation(
        "listErc721Balances",
        "/v1/chains/{chainId}/addresses/{address}/balances:listErc721",
        "List the ERC-721 tokens an address owns, with its native balance.",
        "EVM balances",
        (CHAIN_ID, ADDRESS, PAGE_TOKEN, PAGE_SIZE.bounded(1, 500, 10), CONTRACT_ADDRESS),
        "ListErc721BalancesResponse",
        20,
        list_erc721_balances,
    ),
)
