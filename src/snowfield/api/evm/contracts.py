"""Contracts and tokens: metadata (operation 4), the contracts an address deployed (10), the
transaction that deployed a contract (getDeployment, as a complete view) and the transfers of
one token contract (listTransfers)."""

from __future__ import annotations

from typing import Any

from snowfield.api import render
from snowfield.api.evm.transactions import complete_view
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import (
    ADDRESS,
    CHAIN_ID,
    END_BLOCK,
    PAGE_SIZE,
    PAGE_TOKEN,
    START_BLOCK,
    Param,
)
from snowfield.errors import InvalidParams, NotFound
from snowfield.store import curation, evm_queries, token_queries, tx_queries
from snowfield.store.database import Database
from snowfield.store.documents import ERC_TYPES
from snowfield.store.pagination import Key, Page
from snowfield.store.rows import ChainRow

# The real service's CurrencyCode: accepted, without effect (no price source, so no prices).
CURRENCY = Param(
    "currency",
    "query",
    "The currency of prices; no price source is configured, so it changes nothing.",
    enum=(
        "usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf",
        "jpy", "nzd",
    ),
)  # fmt: skip


def _metadata(db: Database, chain_id: int, address: str) -> Json:
    contract = token_queries.find_contract(db, chain_id, address)
    token = token_queries.tokens(db, chain_id, [address]).get(address)
    curated = curation.curated(db, chain_id, [address]).get(address)
    if contract is None and token is None and curated is None:
        raise NotFound(f"{address} is not a known contract on chain {chain_id}")
    return render.contract_metadata(address, contract, token, curated)


async def get_contract_metadata(ctx: Context) -> Json:
    chain = await ctx.chain()
    return await ctx.run(_metadata, ctx.db, chain.chain_id, ctx.args["address"])


def _deployments(
    db: Database, chain_id: int, deployer: str, after: Key | None, size: int
) -> tuple[list[Json], Page[Any]]:
    page = token_queries.deployments(db, chain_id, deployer, after=after, limit=size)
    addresses = [c.address for c in page.items]
    tokens = token_queries.tokens(db, chain_id, addresses)
    curated = curation.curated(db, chain_id, addresses)
    items = [
        render.contract_metadata(c.address, c, tokens.get(c.address), curated.get(c.address))
        for c in page.items
    ]
    return items, page


async def list_deployments(ctx: Context) -> Json:
    chain = await ctx.chain()
    after = ctx.after()
    items, page = await ctx.run(
        _deployments, ctx.db, chain.chain_id, ctx.args["address"], after, ctx.args["pageSize"]
    )
    return {"contracts": items, **ctx.next_page(page)}


def _deployment(db: Database, chain: ChainRow, address: str) -> Json:
    view = tx_queries.deployment_transaction(db, chain.chain_id, address)
    if view is None:
        raise NotFound(f"{address} is not a contract deployed on chain {chain.chain_id}")
    return complete_view(db, chain, view)


async def get_deployment(ctx: Context) -> Json:
    chain = await ctx.chain()
    return await ctx.run(_deployment, ctx.db, chain, ctx.args["address"])


def _transfers(
    db: Database,
    chain_id: int,
    token: str,
    window: tuple[int | None, int | None],
    after: Key | None,
    size: int,
) -> tuple[list[Json], Page[Any]]:
    found = token_queries.tokens(db, chain_id, [token]).get(token)
    if found is None or found.erc_type not in ERC_TYPES:
        raise NotFound(f"{token} is not a known token contract on chain {chain_id}")
    page = tx_queries.token_transfers(
        db,
        chain_id,
        token,
        start_block=window[0],
        end_block=window[1],
        descending=True,
        after=after,
        limit=size,
    )
    hashes = evm_queries.block_hashes(db, chain_id, [t.block_number for t in page.items])
    names = token_queries.tokens(
        db, chain_id, [a for t in page.items for a in (t.from_addr, t.to_addr, t.token)]
    )
    ids = [(t.token, t.token_id) for t in page.items if t.token_id is not None]
    nfts = token_queries.nfts(db, chain_id, ids)
    items = [
        render.listed_transfer(t, hashes.get(t.block_number, ""), names, nfts) for t in page.items
    ]
    return items, page


async def list_transfers(ctx: Context) -> Json:
    chain = await ctx.chain()
    a = ctx.args
    start, end = a["startBlock"], a["endBlock"]
    if start is not None and end is not None and end < start:
        raise InvalidParams("endBlock must not be less than startBlock")
    after = ctx.after()
    items, page = await ctx.run(
        _transfers, ctx.db, chain.chain_id, a["address"], (start, end), after, a["pageSize"]
    )
    return {"transfers": items, **ctx.next_page(page)}


OPERATIONS = (
    Operation(
        "getContractMetadata",
        "/v1/chains/{chainId}/addresses/{address}",
        "Get the metadata of a contract: ERC type, token facts, deployment, curated fields.",
        "EVM contracts",
        (CHAIN_ID, ADDRESS),
        "ContractMetadata",
        20,
        get_contract_metadata,
    ),
    Operation(
        "listContractDeployments",
        "/v1/chains/{chainId}/contracts/{address}/deployments",
        "List the contracts deployed by an address (as transaction sender or as factory).",
        "EVM contracts",
        (CHAIN_ID, ADDRESS, PAGE_TOKEN, PAGE_SIZE.bounded(1, 100, 10)),
        "ListContractsResponse",
        20,
        list_deployments,
    ),
    Operation(
        "getDeploymentTransaction",
        "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment",
        "Get the transaction that deployed a contract (directly or through a factory), as the"
        " complete view of GET …/transactions/{txHash}.",
        "EVM contracts",
        (CHAIN_ID, ADDRESS, CURRENCY),
        "GetTransactionResponse",
        20,
        get_deployment,
    ),
    Operation(
        "listTransfers",
        "/v1/chains/{chainId}/tokens/{address}/transfers",
        "List the transfers of one ERC-20, ERC-721 or ERC-1155 contract, newest first.",
        "EVM contracts",
        (CHAIN_ID, ADDRESS, PAGE_TOKEN, PAGE_SIZE.bounded(1, 100, 10), START_BLOCK, END_BLOCK),
        "ListTransfersResponse",
        20,
        list_transfers,
    ),
)
