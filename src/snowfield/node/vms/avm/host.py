"""avm's factory: the network's one X-Chain, its genesis the AVAX asset funding the dev keys,
with its runtime, tx, vtx and block indexes, and avm.* service."""

from __future__ import annotations

from typing import Any

from snowfield.chains.exchange.chain import ExchangeChain
from snowfield.chains.exchange.genesis import genesis_state
from snowfield.chains.exchange.state import ExchangeConfig
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.node.health import chain_health
from snowfield.node.hosting import ChainSpec, NodeContext
from snowfield.node.index import BlockIndex, IndexState
from snowfield.node.registry import AVM_VM, GorillaService, HostedChain
from snowfield.node.vms.avm.runtime import XRuntime
from snowfield.node.vms.avm.service import avm_methods
from snowfield.rpc.service import ServiceDispatcher


class AvmFactory:
    """Hosts the X-Chain, answering at /ext/bc/{X,avm,<id>} and /ext/{X,avm}."""

    vm = AVM_VM

    def host(self, chain: ChainSpec, node: NodeContext) -> HostedChain | None:
        ids = node.ids
        if chain.blockchain_id != ids.x_chain:
            return None  # one X-Chain: the primary network's
        config = ExchangeConfig.for_network(
            ids.network_id, ID.from_string(ids.x_chain), ID.from_string(ids.avax_asset)
        )
        peers = (P_CHAIN_ID, ID.from_string(ids.c_chain))
        state = genesis_state(config, node.genesis.x_genesis, peers)
        genesis_time = node.storage.genesis_time("X", int(node.clock()))
        exchange = ExchangeChain(
            state, node.shared_memory, genesis_time, node.settings.x_dag_vertices
        )
        runtime = XRuntime(
            exchange,
            node.storage.journal("X"),
            node.clock,
            node.validators.proposer,
            lambda: node.chains.platform().height,
        )
        service = ServiceDispatcher(avm_methods(runtime, ids))
        return HostedChain(
            alias=chain.alias,
            blockchain_id=chain.blockchain_id,
            subnet_id=chain.subnet_id,
            vm=AVM_VM,
            runtime=runtime,
            services={"": GorillaService(service)},
            health=lambda: _health(runtime),
            indexes=_indexes(runtime, node),
            aliases=chain.aliases,
            short_forms=chain.short_forms,
        )


def _indexes(runtime: XRuntime, node: NodeContext) -> dict[str, BlockIndex]:
    sources = {
        "tx": runtime.containers.txs,
        "vtx": runtime.containers.vertices,
        "block": runtime.containers.blocks,
    }
    settings = node.settings
    indexes = {}
    for name, source in sources.items():
        state = IndexState.resolve(
            node.storage.index_state_path("X", name),
            enabled=settings.index_enabled,
            allow_incomplete=settings.index_allow_incomplete,
            head=source.last_height(),
        )
        if state.enabled:
            indexes[name] = BlockIndex(source, state)
    return indexes


def _health(runtime: XRuntime) -> dict[str, Any]:
    chain = runtime.chain
    last = chain.accepted[-1] if chain.accepted else None
    last_block = chain.blocks[-1] if chain.blocks else None
    return chain_health(
        last_block.height if last_block else 0,
        str(last.id if last else chain.state.config.avax_asset_id),
    )
