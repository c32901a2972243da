"""The primary network's objects: its blockchains, one blockchain or subnet by id, one X-Chain
vertex by hash, and the network's validator and delegator totals."""

from __future__ import annotations

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, SORT_ORDER, Param
from snowfield.api.primary.primary_network import (
    NETWORK_PATH,
    _blockchain,
    _subnet,
    indexed_network,
)
from snowfield.api.primary.validators import stake_ratio
from snowfield.api.primary.vertices import X_CHAIN, _vertex, _xchain
from snowfield.errors import NotFound
from snowfield.store import network_queries, primary_queries, validator_queries, validator_state

BLOCKCHAIN_ID = Param("blockchainId", "path", "A blockchain's id.", required=True)
SUBNET_ID = Param("subnetId", "path", "A subnet's id.", required=True)
VERTEX_HASH = Param("vertexHash", "path", "A vertex's id.", required=True)


async def list_blockchains(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    page = await ctx.run(
        network_queries.blockchains,
        ctx.db,
        net.pchain,
        desc=ctx.args["sortOrder"] == "desc",
        after=ctx.after(),
        limit=ctx.args["pageSize"],
    )
    return {**ctx.next_page(page), "blockchains": [_blockchain(c) for c in page.items]}


async def get_blockchain(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    ref = ctx.args["blockchainId"]
    found = await ctx.run(network_queries.blockchain, ctx.db, net.pchain, ref)
    if found is None:
        raise NotFound(f"blockchain {ref} was not found")
    return _blockchain(found)


async def get_subnet(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    ref = ctx.args["subnetId"]
    found = await ctx.run(network_queries.subnet, ctx.db, net.pchain, ref)
    if found is None:
        raise NotFound(f"subnet {ref} was not found")
    chains = await ctx.run(primary_queries.blockchains_of, ctx.db, net.pchain, [ref])
    return _subnet(net, found, chains[ref])


async def get_vertex(ctx: Context) -> Json:
    xchain = await _xchain(ctx)
    ref = ctx.args["vertexHash"]
    found = await ctx.run(network_queries.vertex, ctx.db, xchain, ref)
    if found is None:
        raise NotFound(f"vertex {ref} was not found")
    return _vertex(found)


async def get_network(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    totals, validators = await ctx.run(validator_queries.current_totals, ctx.db, net.pchain)
    versions = await ctx.run(validator_state.versions, ctx.db, net.pchain)
    supply = await ctx.run(validator_state.supply, ctx.db, net.pchain)
    # Validators whose node's version the indexer saw (its own and its peers'), per version.
    by_version: dict[str, list[int]] = {}
    for v in validators:
        version = versions.get(v.tx_id)
        if version:
            entry = by_version.setdefault(version, [0, 0])
            entry[0] += v.amount
            entry[1] += 1
    staked = totals.validator_stake + totals.delegator_stake
    return {
        "validatorDetails": {
            "validatorCount": totals.validators,
            "totalAmountStaked": str(totals.validator_stake),
            "estimatedAnnualStakingReward": str(totals.potential_rewards),
            "stakingDistributionByVersion": [
                {"version": k, "amountStaked": str(a), "validatorCount": n}
                for k, (a, n) in sorted(by_version.items())
            ],
            "stakingRatio": stake_ratio(staked, None if supply is None else supply[0]),
        },
        "delegatorDetails": {
            "delegatorCount": totals.delegators,
            "totalAmountStaked": str(totals.delegator_stake),
        },
    }


OPERATIONS = (
    Operation(
        "getNetworkDetails",
        "/v1/networks/{network}",
        "Get the primary network's validator and delegator counts and stake.",
        "Primary network",
        (NETWORK_PATH,),
        "GetNetworkDetailsResponse",
        20,
        get_network,
    ),
    Operation(
        "listBlockchains",
        "/v1/networks/{network}/blockchains",
        "List the blockchains created on the P-Chain.",
        "Primary network",
        (NETWORK_PATH, PAGE_TOKEN, PAGE_SIZE.bounded(1, 10000, 100), SORT_ORDER),
        "ListBlockchainsResponse",
        20,
        list_blockchains,
    ),
    Operation(
        "getBlockchainById",
        "/v1/networks/{network}/blockchains/{blockchainId}",
        "Get a blockchain by id.",
        "Primary network",
        (NETWORK_PATH, BLOCKCHAIN_ID),
        "Blockchain",
        20,
        get_blockchain,
    ),
    Operation(
        "getSubnetById",
        "/v1/networks/{network}/subnets/{subnetId}",
        "Get a subnet by id, with its owners, L1 conversion and blockchains.",
        "Primary network",
        (NETWORK_PATH, SUBNET_ID),
        "Subnet",
        20,
        get_subnet,
    ),
    Operation(
        "getVertexByHash",
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}",
        "Get an X-Chain vertex by its hash.",
        "Primary network",
        (NETWORK_PATH, X_CHAIN, VERTEX_HASH),
        "XChainVertex",
        20,
        get_vertex,
    ),
)
