"""The EVM's factories: coreth runs the C-Chain (with its atomic txs), subnet-evm each chain a
CreateChainTx names it for (the L1s); both host an EVM chain alike: its runtime, JSON-RPC,
WebSocket and admin services, block index, health check and Warp signing."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from snowfield.chains.evm.atomic import AtomicContext, AtomicLedger
from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.customgenesis import parse_genesis
from snowfield.chains.evm.execution.call import CallLimits
from snowfield.chains.evm.genesis import Allocation, ChainConfig
from snowfield.chains.evm.rules.cchain import CChainRules
from snowfield.config import EvmChainSettings
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.node.health import chain_health
from snowfield.node.hosting import ChainSpec, NodeContext
from snowfield.node.index import BlockIndex, IndexState
from snowfield.node.primary_genesis import WEI_PER_AVAX
from snowfield.node.registry import (
    CUSTOM_EVM_VM,
    EVM_VM,
    EvmRpc,
    EvmWebSocket,
    GorillaService,
    HostedChain,
    Vm,
)
from snowfield.node.vms.evm.block_ids import BlockIds
from snowfield.node.vms.evm.methods.atomic import atomic_methods
from snowfield.node.vms.evm.methods.chain_validators import (
    ChainValidators,
    chain_validator_methods,
)
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.node.vms.evm.service import evm_rpc_methods
from snowfield.node.warp_signing import EvmVerifier
from snowfield.node.warp_validators import snow_context
from snowfield.rpc.dispatch import Dispatcher, Limits
from snowfield.rpc.service import ServiceDispatcher

log = logging.getLogger("snowfield.node")


class CorethFactory:
    """Hosts the C-Chain: the node's chain settings, the dev accounts and ewoq funded, atomic
    txs with P and X through the shared memory."""

    vm = EVM_VM

    def host(self, chain: ChainSpec, node: NodeContext) -> HostedChain | None:
        ids = node.ids
        if chain.blockchain_id != ids.c_chain:
            return None  # coreth runs the primary network's C-Chain only
        balance = node.settings.balance * WEI_PER_AVAX
        alloc = tuple(Allocation(k.address, balance) for k in node.funded)
        context = AtomicContext(
            ids.network_id,
            ID.from_string(ids.c_chain),
            ID.from_string(ids.avax_asset),
            frozenset({P_CHAIN_ID, ID.from_string(ids.x_chain)}),
        )
        atomic = AtomicLedger(context, node.shared_memory)
        return host_evm_chain(chain, node.settings.c_chain, node, EVM_VM, alloc, atomic=atomic)


class SubnetEvmFactory:
    """Hosts a chain of the custom EVM from the genesis its CreateChainTx carries, with the
    validators of its subnet at /validators; a genesis it refuses leaves the chain unhosted
    and the P-Chain going on, as avalanchego logs the failure."""

    vm = CUSTOM_EVM_VM

    def host(self, chain: ChainSpec, node: NodeContext) -> HostedChain | None:
        try:
            genesis = parse_genesis(chain.genesis, chain.blockchain_id)
        except InvalidParams as exc:
            log.error("chain %s not started: %s", chain.blockchain_id, exc)
            return None
        settings = dataclasses.replace(
            node.settings.c_chain,
            alias=None,
            chain_id=genesis.config.chain_id,
            gas_limit=genesis.config.gas_limit,
            genesis_timestamp=genesis.timestamp,
        )
        alloc = genesis.config.alloc
        hosted = host_evm_chain(chain, settings, node, CUSTOM_EVM_VM, alloc, genesis.config)
        validators = ChainValidators(
            node.chains.platform, ID.from_string(chain.subnet_id), node.validators, node.clock
        )
        validators_rpc = ServiceDispatcher(chain_validator_methods(validators))
        services = {**hosted.services, "validators": GorillaService(validators_rpc)}
        return dataclasses.replace(hosted, services=services)


def host_evm_chain(
    chain: ChainSpec,
    settings: EvmChainSettings,
    node: NodeContext,
    vm: Vm,
    alloc: tuple[Allocation, ...],
    genesis: ChainConfig | None = None,
    *,
    atomic: AtomicLedger | None = None,
) -> HostedChain:
    """Builds the chain (replaying its journal), its runtime and services. `genesis`: the
    chain's config from its genesis (rule set, base fee floor); None: the C-Chain's."""
    label = chain.alias or chain.blockchain_id
    config = ChainConfig(
        chain_id=settings.chain_id,
        gas_limit=settings.gas_limit,
        alias=label,
        client_version=node.version,
        alloc=alloc,
        rules=CChainRules(),
    )
    if genesis is not None:
        config = dataclasses.replace(config, rules=genesis.rules, min_base_fee=genesis.min_base_fee)
    network = node.settings
    evm = EvmChain(
        config,
        node.storage.journal(label),
        clock=node.clock,
        genesis_time=settings.genesis_timestamp,
        call_limits=CallLimits(network.rpc_gas_cap, network.rpc_evm_timeout),
        snow=snow_context(network.network_id, chain.blockchain_id, chain.subnet_id, node.chains),
        atomic=atomic,
    )
    runtime = EvmRuntime(evm, blockchain_id=chain.blockchain_id, block_time=settings.block_time)
    limits = Limits(
        batch_items=network.batch_request_limit, request_bytes=network.max_request_bytes
    )
    rpc = Dispatcher(evm_rpc_methods(runtime, settings, node), limits)
    state = IndexState.resolve(
        node.storage.index_state_path(label, "block"),
        enabled=network.index_enabled,
        allow_incomplete=network.index_allow_incomplete,
        head=evm.head.number,
    )
    indexes = {"block": BlockIndex(runtime.ids, state)} if state.enabled else {}
    admin = ServiceDispatcher(node.admin.handlers(), node.admin.aliases())
    atomic_services = _atomic_services(chain, runtime, node) if atomic else {}
    return HostedChain(
        alias=chain.alias,
        blockchain_id=chain.blockchain_id,
        subnet_id=chain.subnet_id,
        vm=vm,
        runtime=runtime,
        services={
            "rpc": EvmRpc(rpc),
            "ws": EvmWebSocket(rpc, runtime.hub),
            "admin": GorillaService(admin),
            **atomic_services,
        },
        health=lambda: evm_health(runtime.ids),
        indexes=indexes,
        aliases=chain.aliases,
        short_forms=chain.short_forms,
        warp=EvmVerifier(lambda: evm),
    )


def _atomic_services(
    chain: ChainSpec, runtime: EvmRuntime, node: NodeContext
) -> dict[str, GorillaService]:
    """avax.* at /avax (avalanchego's) and native.* at /native (the spec's), on the C-Chain."""
    names = (chain.alias or chain.blockchain_id, *chain.aliases, chain.blockchain_id)
    network_id, chain_ids = node.ids.network_id, node.chains.blockchain_id
    return {
        namespace: GorillaService(
            ServiceDispatcher(atomic_methods(namespace, runtime, network_id, chain_ids, names))
        )
        for namespace in ("avax", "native")
    }


def evm_health(ids: BlockIds) -> dict[str, Any]:
    """The chain's health check message, as avalanchego's consensus engine reports it."""
    return chain_health(ids.chain.head.number, ids.last_accepted_id())
