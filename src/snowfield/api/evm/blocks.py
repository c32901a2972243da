"""Operation 9: the transactions of one block, by number or hash."""

from __future__ import annotations

from typing import Any

from snowfield.api import render
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import BLOCK_ID, CHAIN_ID, PAGE_SIZE, PAGE_TOKEN
from snowfield.errors import NotFound
from snowfield.store import evm_queries, token_queries
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page


def _load(
    db: Database, chain_id: int, block: int | str, after: Key | None, size: int
) -> tuple[list[Json], Page[Any]]:
    found = evm_queries.find_block(db, chain_id, block)
    if found is None:
        raise NotFound(f"block {block} not found")
    # pageSize 0 (the clients' default) means the whole block on one page.
    page = evm_queries.block_transactions(
        db, chain_id, found.number, after=after, limit=size or None
    )
    names = token_queries.tokens(
        db, chain_id, [a for t in page.items for a in (t.from_addr, t.to_addr, t.created) if a]
    )
    return [render.native_transaction(t, names) for t in page.items], page


async def list_block_transactions(ctx: Context) -> Json:
    chain = await ctx.chain()
    after = ctx.after()
    items, page = await ctx.run(
        _load, ctx.db, chain.chain_id, ctx.args["blockId"], after, ctx.args["pageSize"]
    )
    return {"transactions": items, **ctx.next_page(page)}


OPERATIONS = (
    Operation(
        "listBlockTransactions",
        "/v1/chains/{chainId}/blocks/{blockId}/transactions",
        "List the transactions of a block, in block order; pageSize 0 returns the whole block.",
        "EVM blocks",
        (CHAIN_ID, BLOCK_ID, PAGE_TOKEN, PAGE_SIZE.bounded(0, 100, 0)),
        "ListBlockTransactionsResponse",
        20,
        list_block_transactions,
    ),
)
