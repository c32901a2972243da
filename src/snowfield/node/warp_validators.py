"""The P-Chain's validator state as the node's EVM chains verify Warp messages against it
(avalanchego's validators.State: GetSubnetID, GetWarpValidatorSet at a height)."""

from __future__ import annotations

from collections.abc import Iterable

from snowfield.chains.evm.warp import NO_CHAIN, SnowContext
from snowfield.chains.platform.chain import PlatformChain
from snowfield.crypto.warp import ValidatorEntry
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, NodeID
from snowfield.node.registry import ChainRegistry


class NodeWarpValidators:
    """Reads the P-Chain hosted in `chains` when asked (it may be registered after the
    chains that use it)."""

    def __init__(self, chains: ChainRegistry) -> None:
        self._chains = chains

    def _platform(self) -> PlatformChain:
        return self._chains.platform()

    def p_chain_height(self) -> int:
        return self._platform().height

    def subnet_of(self, chain_id: ID) -> ID:
        if chain_id == P_CHAIN_ID:
            return PRIMARY_NETWORK_ID
        hosted = self._chains.get(str(chain_id))
        if hosted is not None:
            return ID.from_string(hosted.subnet_id)
        for blockchain in self._platform().blockchains():
            if blockchain.blockchain_id == chain_id:
                return blockchain.subnet_id
        raise InvalidParams(f"chain {chain_id} not found")

    def validators_at(self, height: int, subnet_id: ID) -> Iterable[ValidatorEntry]:
        validators = self._platform().validators_at(height, subnet_id)
        return [
            ValidatorEntry(NodeID(node), key, weight) for node, (weight, key) in validators.items()
        ]


def snow_context(
    network_id: int, blockchain_id: str, subnet_id: str, chains: ChainRegistry
) -> SnowContext:
    """The Warp identity of a chain the node hosts (a name that is not a cb58 id, as some
    tests register, gets the empty id: its messages then name no source chain)."""
    try:
        chain_id = ID.from_string(blockchain_id)
    except InvalidParams:
        chain_id = NO_CHAIN
    return SnowContext(network_id, chain_id, ID.from_string(subnet_id), NodeWarpValidators(chains))
