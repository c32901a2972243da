"""The X-Chain as the node hosts it so far: its name and id (info.getBlockchainID) and the two
avm.* reads a client's Context needs, at /ext/bc/X and /ext/X."""

from __future__ import annotations

from snowfield.node.methods.avm_context import avm_context_methods
from snowfield.node.networks import NetworkIds
from snowfield.node.registry import GorillaService, HostedChain, Vm
from snowfield.rpc.service import ServiceDispatcher

AVM_VM = Vm("jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq", "avm")


class IdleRuntime:
    """A chain with nothing running: its reads are answered from constants."""

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None


def host_x_context(ids: NetworkIds) -> HostedChain:
    """The X-Chain's Context reads under the network's known X-Chain id."""
    service = ServiceDispatcher(avm_context_methods(ids.avax_asset))
    return HostedChain(
        alias="X",
        blockchain_id=ids.x_chain,
        subnet_id=ids.primary_subnet,
        vm=AVM_VM,
        runtime=IdleRuntime(),
        services={"": GorillaService(service)},
        health=lambda: {},
        short_forms=("X",),
    )
