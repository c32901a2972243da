"""Operation 3: the supported EVM chains."""

from __future__ import annotations

from snowfield.api import render
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import FEATURE, NETWORK
from snowfield.store import queries


async def list_chains(ctx: Context) -> Json:
    network, feature = ctx.args["network"], ctx.args["feature"]
    testnet = None if network is None else network != "mainnet"
    found = await ctx.run(queries.list_chains, ctx.db, testnet=testnet)
    chains = [render.chain(c) for c in found if feature is None or feature in c.features]
    return {"chains": chains}


OPERATIONS = (
    Operation(
        "listChains",
        "/v1/chains",
        "List the supported EVM chains, optionally by network and enabled feature.",
        "EVM chains",
        (NETWORK, FEATURE),
        "ListChainsResponse",
        1,
        list_chains,
    ),
)
