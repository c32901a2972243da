"""Blocks of one chain: a block by number or hash (getBlock), the latest blocks (listLatest),
and operation 9, the transactions of one block."""

from __future__ import annotations

from typing import Any

from snowfield.api import render
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import BLOCK_ID, CHAIN_ID, PAGE_SIZE, PAGE_TOKEN
from snowfield.errors import NotFound
from snowfield.store import evm_queries, feed_queries, token_queries
from snowfield.store.database import Database
from snowfield.store.documents import put
from snowfield.store.pagination import Key, Page
from snowfield.store.rows import BlockRow


def block(b: BlockRow) -> Json:
    """An EvmBlock: Granite's fields only where the header has them."""
    out: Json = {
        "chainId": str(b.chain_id),
        "blockNumber": str(b.number),
        "blockTimestamp": b.timestamp,
        "blockHash": b.hash,
        "txCount": b.tx_count,
        "baseFee": str(b.base_fee or 0),
        "gasUsed": str(b.gas_used),
        "gasLimit": str(b.gas_limit),
        "gasCost": str(b.gas_cost),
        "parentHash": b.parent_hash,
        "feesSpent": str(b.fees_spent),
        "cumulativeTransactions": str(b.cumulative_txs or 0),
    }
    put(out, blockTimestampMilliseconds=b.timestamp_ms, blockMinDelayExcess=b.min_delay_excess)
    return out


def _block(db: Database, chain_id: int, ref: int | str) -> BlockRow:
    found = evm_queries.find_block(db, chain_id, ref)
    if found is None:
        raise NotFound(f"block {ref} not found")
    return found


async def get_block(ctx: Context) -> Json:
    chain = await ctx.chain()
    return block(await ctx.run(_block, ctx.db, chain.chain_id, ctx.args["blockId"]))


async def list_latest_blocks(ctx: Context) -> Json:
    chain = await ctx.chain()
    after = ctx.after()
    page = await ctx.run(
        feed_queries.latest_blocks,
        ctx.db,
        [chain.chain_id],
        after=after,
        limit=ctx.args["pageSize"],
    )
    return {"blocks": [block(b) for b in page.items], **ctx.next_page(page)}


def _load(
    db: Database, chain_id: int, number: int | str, after: Key | None, size: int
) -> tuple[list[Json], Page[Any]]:
    found = _block(db, chain_id, number)
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
        "getBlock",
        "/v1/chains/{chainId}/blocks/{blockId}",
        "Get a block by number or hash: its header, fees, gas cost and running transaction count.",
        "EVM blocks",
        (CHAIN_ID, BLOCK_ID),
        "EvmBlock",
        20,
        get_block,
    ),
    Operation(
        "getLatestBlocks",
        "/v1/chains/{chainId}/blocks",
        "List the latest indexed blocks of a chain, newest first.",
        "EVM blocks",
        (CHAIN_ID, PAGE_TOKEN, PAGE_SIZE.bounded(1, 100, 10)),
        "ListEvmBlocksResponse",
        20,
        list_latest_blocks,
    ),
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
