"""The latest blocks and transactions of every indexed EVM chain, merged by time (newest
first): /v1/blocks and /v1/transactions, and their deprecated twins /v1/chains/allBlocks and
/v1/chains/allTransactions. `network` keeps the chains of one network; an API key limited to
some chains sees those only."""

from __future__ import annotations

import dataclasses
from typing import Any

from snowfield.api.evm.blocks import block
from snowfield.api.evm.transactions import LATEST_SIZE, STATUS, latest
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import NETWORK, PAGE_TOKEN
from snowfield.store import chain_queries, feed_queries
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey

_NETWORK = dataclasses.replace(
    NETWORK,
    description="Only chains of this network; fuji and testnet both name the test networks.",
)


def _visible(db: Database, network: str | None, key: ApiKey | None) -> list[int]:
    """The chains a request sees: of its network, and that its key may query."""
    testnet = None if network is None else network != "mainnet"
    return [
        c.chain_id
        for c in chain_queries.list_chains(db, testnet=testnet)
        if key is None or key.allows(c.chain_id)
    ]


def _blocks(
    db: Database, network: str | None, key: ApiKey | None, after: Any, size: int
) -> tuple[list[Json], Any]:
    page = feed_queries.latest_blocks(db, _visible(db, network, key), after=after, limit=size)
    return [block(b) for b in page.items], page


def _transactions(
    db: Database, network: str | None, status: str | None, key: ApiKey | None, after: Any, size: int
) -> tuple[list[Json], Any]:
    return latest(db, _visible(db, network, key), status, after, size)


async def list_blocks(ctx: Context) -> Json:
    after = ctx.after()
    a = ctx.args
    items, page = await ctx.run(_blocks, ctx.db, a["network"], ctx.key, after, a["pageSize"])
    return {"blocks": items, **ctx.next_page(page)}


async def list_transactions(ctx: Context) -> Json:
    after = ctx.after()
    a = ctx.args
    items, page = await ctx.run(
        _transactions, ctx.db, a["network"], a["status"], ctx.key, after, a["pageSize"]
    )
    return {"transactions": items, **ctx.next_page(page)}


_BLOCKS = (_NETWORK, PAGE_TOKEN, LATEST_SIZE)
_TXS = (_NETWORK, PAGE_TOKEN, LATEST_SIZE, STATUS)
_TAG = "EVM chains"
OPERATIONS = (
    Operation(
        "listLatestTransactionsAllChains",
        "/v1/transactions",
        "List the latest transactions of every indexed EVM chain, newest first; by network and"
        " status.",
        _TAG,
        _TXS,
        "ListNativeTransactionsResponse",
        20,
        list_transactions,
    ),
    Operation(
        "listLatestBlocksAllChains",
        "/v1/blocks",
        "List the latest blocks of every indexed EVM chain, newest first; by network.",
        _TAG,
        _BLOCKS,
        "ListEvmBlocksResponse",
        20,
        list_blocks,
    ),
    Operation(
        "listAllLatestTransactions",
        "/v1/chains/allTransactions",
        "Deprecated (the real service's older path): as GET /v1/transactions.",
        _TAG,
        _TXS,
        "ListNativeTransactionsResponse",
        20,
        list_transactions,
    ),
    Operation(
        "listAllLatestBlocks",
        "/v1/chains/allBlocks",
        "Deprecated (the real service's older path): as GET /v1/blocks.",
        _TAG,
        _BLOCKS,
        "ListEvmBlocksResponse",
        20,
        list_blocks,
    ),
)
