"""Operation 3, the supported EVM chains, and one of them (getChainInfo)."""

from __future__ import annotations

import dataclasses
import time

from snowfield.api import render
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import CHAIN_ID, FEATURE, NETWORK
from snowfield.formats.icm import MESSENGER_ADDRESSES
from snowfield.store import chain_queries, icm, webhook_outbox
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow

ALIVE_MS = 30_000  # a delivery worker silent longer is taken for stopped (it beats every 5 s)


def _chains(db: Database, testnet: bool | None) -> list[ChainRow]:
    return with_features(db, chain_queries.list_chains(db, testnet=testnet))


def with_features(db: Database, found: list[ChainRow]) -> list[ChainRow]:
    """`found`, with `teleporter` among the features of those where the ICM messenger is
    (as the data service enables it per chain), and `webhooks` on exactly those whose
    deliveries work now (indexed here while a delivery worker runs), whatever was configured."""
    with_messenger = icm.messenger_chains(db, MESSENGER_ADDRESSES)
    delivering = webhook_outbox.delivering_chains(db, int(time.time() * 1000), ALIVE_MS)
    out = []
    for c in found:
        features = [f for f in c.features if f != "webhooks"]
        if c.chain_id in with_messenger and "teleporter" not in features:
            features.append("teleporter")
        if c.chain_id in delivering:
            features.append("webhooks")
        out.append(
            c if tuple(features) == c.features else dataclasses.replace(c, features=tuple(features))
        )
    return out


async def list_chains(ctx: Context) -> Json:
    network, feature = ctx.args["network"], ctx.args["feature"]
    testnet = None if network is None else network != "mainnet"
    found = await ctx.run(_chains, ctx.db, testnet)
    chains = [render.chain(c) for c in found if feature is None or feature in c.features]
    return {"chains": chains}


async def get_chain(ctx: Context) -> Json:
    chain = await ctx.chain()
    [found] = await ctx.run(with_features, ctx.db, [chain])
    return render.chain(found)


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
    Operation(
        "getChainInfo",
        "/v1/chains/{chainId}",
        "Get one supported EVM chain, by EVM chain id or blockchain id.",
        "EVM chains",
        (CHAIN_ID,),
        "ChainInfo",
        1,
        get_chain,
    ),
)
