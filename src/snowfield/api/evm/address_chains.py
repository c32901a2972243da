"""Which indexed EVM chains an address has used (getAddressChains, listAddressChains: the real
service serves the same answer at two paths)."""

from __future__ import annotations

from snowfield.api import render
from snowfield.api.evm.chains import with_features
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import ADDRESS
from snowfield.store import chain_queries
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow


def _used(db: Database, address: str) -> list[ChainRow]:
    return with_features(db, chain_queries.address_chains(db, address))


async def address_chains(ctx: Context) -> Json:
    found = await ctx.run(_used, ctx.db, ctx.args["address"])
    # A key limited to some chains sees those only, as everywhere else.
    allowed = [c for c in found if ctx.key is None or ctx.key.allows(c.chain_id)]
    # Every chain this service knows is indexed: none is listed as used but unindexed.
    return {"indexedChains": [render.chain(c) for c in allowed], "unindexedChains": []}


_SUMMARY = (
    "List the indexed EVM chains where an address sent or received a transaction, a token"
    " transfer or an internal transaction."
)
OPERATIONS = (
    Operation(
        "getAddressChains",
        "/v1/chains/address/{address}",
        _SUMMARY,
        "EVM chains",
        (ADDRESS,),
        "ListAddressChainsResponse",
        1,
        address_chains,
    ),
    Operation(
        "listAddressChains",
        "/v1/address/{address}/chains",
        _SUMMARY,
        "EVM chains",
        (ADDRESS,),
        "ListAddressChainsResponse",
        1,
        address_chains,
    ),
)
