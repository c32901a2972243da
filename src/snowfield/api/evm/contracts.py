"""Operations 4 and 10: contract metadata, and the contracts an address deployed."""

from __future__ import annotations

from typing import Any

from snowfield.api import render
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import ADDRESS, CHAIN_ID, PAGE_SIZE, PAGE_TOKEN
from snowfield.errors import NotFound
from snowfield.store import curation, token_queries
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page


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
)
