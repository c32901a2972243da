"""platformvm's factory: the network's one P-Chain, its genesis local-network shaped (the
node's validators staking, the dev keys funded), its runtime, index and platform.* service."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.genesis import LocalStaker, local_config
from snowfield.chains.platform.records import Blockchain
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, ShortID
from snowfield.node.health import chain_health
from snowfield.node.hosting import ChainSpec, NodeContext
from snowfield.node.index import BlockIndex, IndexState
from snowfield.node.networks import NetworkIds
from snowfield.node.registry import AVM_VM, EVM_VM, PLATFORM_VM, GorillaService, HostedChain
from snowfield.node.validators import ValidatorSet
from snowfield.node.vms.platform.runtime import PlatformRuntime
from snowfield.node.vms.platform.service import platform_methods
from snowfield.node.warp_signing import PlatformVerifier
from snowfield.rpc.service import ServiceDispatcher


class PlatformFactory:
    """Hosts the P-Chain, and tells the node of every chain it creates."""

    vm = PLATFORM_VM

    def host(self, chain: ChainSpec, node: NodeContext) -> HostedChain | None:
        if chain.blockchain_id != str(P_CHAIN_ID):
            return None  # one P-Chain: the primary network's
        runtime = _runtime(node)
        settings = node.settings
        state = IndexState.resolve(
            node.storage.index_state_path("P", "block"),
            enabled=settings.index_enabled,
            allow_incomplete=settings.index_allow_incomplete,
            head=runtime.blocks.last_height(),
        )
        indexes = {"block": BlockIndex(runtime.blocks, state)} if state.enabled else {}
        methods = platform_methods(runtime, node.ids.network_id, node.chains.blockchain_id)
        # The chains it created (replayed), then each new one, once its block is accepted.
        for blockchain in runtime.chain.blockchains():
            node.create_chain(blockchain)
        runtime.chain_listeners.append(node.create_chain)
        return HostedChain(
            alias=chain.alias,
            blockchain_id=chain.blockchain_id,
            subnet_id=chain.subnet_id,
            vm=PLATFORM_VM,
            runtime=runtime,
            services={"": GorillaService(ServiceDispatcher(methods))},
            health=lambda: _health(runtime),
            indexes=indexes,
            aliases=chain.aliases,
            short_forms=chain.short_forms,
            warp=PlatformVerifier(lambda: runtime.chain),
        )


def _runtime(node: NodeContext) -> PlatformRuntime:
    """The P-Chain from its genesis, its journal replayed; it moves with the network clock."""
    ids, genesis = node.ids, node.genesis
    config = local_config(
        ids.network_id,
        ID.from_string(ids.avax_asset),
        node.storage.genesis_time("P", int(node.clock())),
        _stakers(node.validators),
        genesis.chains,
        dev_addresses=_p_addresses(k.private_key for k in node.dev_keys),
    )
    chain = PlatformChain.from_genesis(config, node.shared_memory)
    if not genesis.chains:  # posing as a known network: its X and C under their known ids
        _add_network_chains(chain, ids)
    chain.observed_uptime = node.validators.observed_uptime
    journal = node.storage.journal("P")
    runtime = PlatformRuntime(chain, journal, node.clock, node.validators.proposer)
    node.clock.subscribe(runtime.clock_moved)
    return runtime


def _stakers(validators: ValidatorSet) -> tuple[LocalStaker, ...]:
    """The node's validators, staking from genesis."""
    return tuple(
        LocalStaker(
            v.node_id,
            v.signer.public_key().to_bytes(),
            v.signer.prove_possession().to_bytes(),
        )
        for v in validators.validators
    )


def _p_addresses(secrets: Iterable[bytes]) -> tuple[ShortID, ...]:
    return tuple(ShortID.from_public_key(public_key_of(s)) for s in secrets)


def _add_network_chains(chain: PlatformChain, ids: NetworkIds) -> None:
    """X and C as primary-network chains of the state under the posed network's ids, so that
    atomic txs to and from them verify."""
    for name, blockchain_id, vm in (
        ("C-Chain", ids.c_chain, EVM_VM),
        ("X-Chain", ids.x_chain, AVM_VM),
    ):
        key = ID.from_string(blockchain_id)
        chain.state.blockchains.setdefault(
            key, Blockchain(key, name, PRIMARY_NETWORK_ID, ID.from_string(vm.id), (), b"")
        )


def _health(runtime: PlatformRuntime) -> dict[str, Any]:
    """The chain's check as avalanchego's engine reports it, on the container ids."""
    last = runtime.blocks.last
    return chain_health(last.height, str(last.id))
