"""The blockchain id of the chain an EVM node serves and the network it is on, as the node's
public info API names them."""

from __future__ import annotations

import re

from snowfield.errors import SnowfieldError
from snowfield.rpc.client import RpcClient

# avalanchego serves a chain's JSON-RPC at <node>/ext/bc/<alias or blockchain id>/rpc.
_CHAIN_RPC = re.compile(r"^(?P<node>.+)/ext/bc/(?P<chain>[^/]+)/rpc/?$")


def info_target(rpc_url: str) -> tuple[str, str] | None:
    """The node's /ext/info URL and the chain's alias, when the URL is an avalanchego path."""
    match = _CHAIN_RPC.match(rpc_url)
    if match is None:
        return None
    return f"{match['node']}/ext/info", match["chain"]


async def learn_blockchain_id(rpc_url: str) -> str | None:
    """info.getBlockchainID of the chain behind `rpc_url`; None for a node that has no info
    API (anvil, geth), whose chain the store then keys by an id derived from its chain id."""
    target = info_target(rpc_url)
    if target is None:
        return None
    url, alias = target
    try:
        async with RpcClient(url, timeout=5.0) as client:
            reply = await client.call_object("info.getBlockchainID", {"alias": alias})
    except SnowfieldError:
        return None
    found = reply.get("blockchainID") if isinstance(reply, dict) else None
    return found if isinstance(found, str) else None


MAINNET_ID = 1


async def learn_network(rpc_url: str) -> str | None:
    """`mainnet` or `testnet` by the node's info.getNetworkID (1 is mainnet, as avalanchego
    numbers it; Fuji, local and other ids are test networks); None without an info API."""
    target = info_target(rpc_url)
    if target is None:
        return None
    try:
        async with RpcClient(target[0], timeout=5.0) as client:
            reply = await client.call_object("info.getNetworkID", {})
    except SnowfieldError:
        return None
    found = reply.get("networkID") if isinstance(reply, dict) else None
    if not isinstance(found, str) or not found.isdigit():
        return None
    return "mainnet" if int(found) == MAINNET_ID else "testnet"
