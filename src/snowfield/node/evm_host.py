"""An EVM chain hosted by the node: its runtime, JSON-RPC and admin services, block index
and health check, as one HostedChain."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snowfield.chains.clock import NetworkClock
from snowfield.chains.evm.atomic import AtomicLedger
from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.execution.call import CallLimits
from snowfield.chains.evm.genesis import Allocation, ChainConfig
from snowfield.chains.evm.warp import SnowContext
from snowfield.config import EvmChainSettings
from snowfield.node.block_ids import BlockIds
from snowfield.node.health import chain_health
from snowfield.node.index import BlockIndex, IndexState
from snowfield.node.methods.admin import Admin
from snowfield.node.methods.atomic import ChainIds, atomic_methods
from snowfield.node.registry import EVM_VM, EvmRpc, EvmWebSocket, GorillaService, HostedChain, Vm
from snowfield.node.runtime import EvmRuntime
from snowfield.node.storage import NodeStorage
from snowfield.rpc.dispatch import Dispatcher, Limits, Method
from snowfield.rpc.service import ServiceDispatcher


@dataclass(frozen=True, slots=True)
class AtomicHosting:
    """The C-Chain's atomic txs: its ledger (over the network's shared memory) and what its
    avax.* / native.* services resolve names with."""

    ledger: AtomicLedger
    network_id: int
    chain_ids: ChainIds


@dataclass(frozen=True, slots=True)
class EvmHosting:
    """What hosting an EVM chain takes from the node."""

    blockchain_id: str
    subnet_id: str
    alloc: tuple[Allocation, ...]
    client_version: str
    limits: Limits
    index_enabled: bool
    index_allow_incomplete: bool
    admin: Admin
    call_limits: CallLimits
    clock: NetworkClock
    aliases: tuple[str, ...] = ()
    short_forms: tuple[str, ...] = ()
    vm: Vm = EVM_VM
    # The chain's config from its genesis (rule set, base fee floor); None: the C-Chain's.
    genesis: ChainConfig | None = None
    snow: SnowContext | None = None  # the chain's Warp identity and validators
    atomic: AtomicHosting | None = None


def host_evm_chain(
    settings: EvmChainSettings,
    hosting: EvmHosting,
    storage: NodeStorage,
    methods: Callable[[EvmRuntime], list[Method]],
) -> HostedChain:
    """Builds the chain (replaying its journal), its runtime and services."""
    label = settings.alias or hosting.blockchain_id
    config = ChainConfig(
        chain_id=settings.chain_id,
        gas_limit=settings.gas_limit,
        alias=label,
        client_version=hosting.client_version,
        alloc=hosting.alloc,
    )
    if hosting.genesis is not None:
        config = dataclasses.replace(
            config, rules=hosting.genesis.rules, min_base_fee=hosting.genesis.min_base_fee
        )
    chain = EvmChain(
        config,
        storage.journal(label),
        clock=hosting.clock,
        genesis_time=settings.genesis_timestamp,
        call_limits=hosting.call_limits,
        snow=hosting.snow,
        atomic=hosting.atomic.ledger if hosting.atomic else None,
    )
    runtime = EvmRuntime(chain, blockchain_id=hosting.blockchain_id, block_time=settings.block_time)
    rpc = Dispatcher(methods(runtime), hosting.limits)
    state = IndexState.resolve(
        storage.index_state_path(label, "block"),
        enabled=hosting.index_enabled,
        allow_incomplete=hosting.index_allow_incomplete,
        head=chain.head.number,
    )
    indexes = {"block": BlockIndex(runtime.ids, state)} if state.enabled else {}
    admin = ServiceDispatcher(hosting.admin.handlers(), hosting.admin.aliases())
    return HostedChain(
        alias=settings.alias,
        blockchain_id=hosting.blockchain_id,
        subnet_id=hosting.subnet_id,
        vm=hosting.vm,
        runtime=runtime,
        services={
            "rpc": EvmRpc(rpc),
            "ws": EvmWebSocket(rpc, runtime.hub),
            "admin": GorillaService(admin),
            **_atomic_services(hosting, runtime, label),
        },
        health=lambda: evm_health(runtime.ids),
        indexes=indexes,
        aliases=hosting.aliases,
        short_forms=hosting.short_forms,
    )


def _atomic_services(
    hosting: EvmHosting, runtime: EvmRuntime, label: str
) -> dict[str, GorillaService]:
    """avax.* at /avax (avalanchego's) and native.* at /native (the spec's), on the C-Chain."""
    atomic = hosting.atomic
    if atomic is None:
        return {}
    names = (label, *hosting.aliases, hosting.blockchain_id)
    return {
        namespace: GorillaService(
            ServiceDispatcher(
                atomic_methods(namespace, runtime, atomic.network_id, atomic.chain_ids, names)
            )
        )
        for namespace in ("avax", "native")
    }


def evm_health(ids: BlockIds) -> dict[str, Any]:
    """The chain's health check message, as avalanchego's consensus engine reports it."""
    return chain_health(ids.chain.head.number, ids.last_accepted_id())
