"""The info API at /ext/info: what the node says about itself and the chains it hosts."""

from __future__ import annotations

from typing import Any

from snowfield.errors import InvalidParams, NotFound
from snowfield.node.registry import ChainRegistry
from snowfield.rpc.service import ServiceDispatcher


def info_service(network_id: int, chains: ChainRegistry) -> ServiceDispatcher:
    """info.getNetworkID and info.getBlockchainID; the rest of info.* comes with the network."""

    def get_network_id(_: dict[str, Any]) -> dict[str, str]:
        return {"networkID": str(network_id)}

    def get_blockchain_id(params: dict[str, Any]) -> dict[str, str]:
        alias = params.get("alias")
        if not isinstance(alias, str):
            raise InvalidParams("alias must be a string")
        chain = chains.get(alias)
        if chain is None:
            raise NotFound(f"there is no ID with alias: {alias}")
        return {"blockchainID": chain.blockchain_id}

    return ServiceDispatcher(
        {"info.getNetworkID": get_network_id, "info.getBlockchainID": get_blockchain_id}
    )
