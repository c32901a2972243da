"""The devnet node: its registry of hosted chains, keystore, health and admin."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from snowfield.chains.atomic import SharedMemory
from snowfield.chains.clock import NetworkClock
from snowfield.chains.evm.atomic import AtomicContext, AtomicLedger
from snowfield.chains.evm.customgenesis import parse_genesis
from snowfield.chains.evm.execution.call import CallLimits
from snowfield.chains.evm.genesis import Allocation, ChainConfig
from snowfield.chains.platform.genesis import LocalStaker
from snowfield.chains.platform.records import Blockchain
from snowfield.config import EvmChainSettings, NetworkSettings
from snowfield.crypto.keys import EWOQ_KEY, DevKey, derive_keys, key_from_bytes
from snowfield.crypto.staking import StakingIdentity
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID, NodeID
from snowfield.formats.timefmt import format_rfc3339
from snowfield.node.evm_host import AtomicHosting, EvmHosting, host_evm_chain
from snowfield.node.health import CheckFailed, HealthService
from snowfield.node.info import InfoService, NodeFacts, info_service
from snowfield.node.l1_boot import DEFAULT_L1_CHAIN_ID, PlatformWallet, create_l1, devnet_l1_genesis
from snowfield.node.methods.accesslist import access_list_methods
from snowfield.node.methods.admin import Admin
from snowfield.node.methods.chain_validators import ChainValidators, chain_validator_methods
from snowfield.node.methods.cheats import cheat_methods
from snowfield.node.methods.customevm import custom_evm_methods
from snowfield.node.methods.debug import debug_methods
from snowfield.node.methods.eth import ProofPolicy, eth_methods
from snowfield.node.methods.evm import evm_methods
from snowfield.node.methods.keystore import Keystore
from snowfield.node.methods.logs import log_methods
from snowfield.node.methods.personal import personal_methods
from snowfield.node.methods.signing import signing_methods
from snowfield.node.methods.simulate import simulate_methods
from snowfield.node.methods.txpool import txpool_methods
from snowfield.node.methods.web3net import web3_net_methods
from snowfield.node.platform_host import (
    PlatformHosting,
    PlatformRuntime,
    genesis_time,
    host_platform_chain,
)
from snowfield.node.primary_genesis import primary_genesis
from snowfield.node.registry import (
    CUSTOM_EVM_VM,
    EVM_VM,
    ChainRegistry,
    EvmRpc,
    GorillaService,
    HostedChain,
    Vm,
    chain_dir,
)
from snowfield.node.runtime import EvmRuntime
from snowfield.node.staking_network import StakingNetwork, staking_network_service
from snowfield.node.storage import NodeStorage
from snowfield.node.validators import ValidatorSet, devnet_validator_service, load_validators
from snowfield.node.warp_signing import EvmVerifier, PlatformVerifier, Verifier
from snowfield.node.warp_validators import snow_context
from snowfield.node.x_host import XHosting, XRuntime, host_x_chain
from snowfield.rpc.dispatch import Dispatcher, Limits, Method
from snowfield.rpc.service import ServiceDispatcher

log = logging.getLogger("snowfield.node")
AVAX = 10**18
VERSION = "snowfield/v0.1.0"


class Node:
    """One devnet node. Build it, `await start()`, serve `create_node_app(node)`, `await stop()`.

    The chains it hosts are in `chains`; routes, health checks and data folders follow from
    their registrations."""

    def __init__(self, settings: NetworkSettings, storage: NodeStorage) -> None:
        self.settings = settings
        self.work_dir = storage.data_dir
        self.dev_keys: list[DevKey] = derive_keys(settings.mnemonic, settings.accounts)
        # The AVAX asset and the X and C ids come from the genesis (or the posed network's).
        self.genesis = primary_genesis(settings, [k.private_key for k in self.dev_keys])
        self.ids = self.genesis.ids
        storage.claim(
            {
                "networkId": settings.network_id,
                "chainId": settings.c_chain.chain_id,
                # The mnemonic's first account stands for it (the mnemonic is not written).
                "firstAccount": "0x" + self.dev_keys[0].address.hex() if self.dev_keys else None,
            }
        )
        funded = [*self.dev_keys, key_from_bytes(EWOQ_KEY)]
        self.keystore = Keystore(funded)
        self.admin = Admin(storage.profiles, self.vm_config())
        self.health = HealthService(format_rfc3339, settings.health_check_frequency)
        self.health_rpc = ServiceDispatcher(
            {
                "health.health": lambda p: self.health.health.report(_tags(p)),
                "health.readiness": lambda p: self.health.readiness.report(_tags(p)),
                "health.liveness": lambda p: self.health.liveness(),
            }
        )
        self.chains = ChainRegistry()
        # One time for the whole network: every chain reads it, the time controls move it.
        self.clock = NetworkClock()
        self.validators = ValidatorSet(
            load_validators(storage.data_dir, settings.validators), self.clock
        )
        # The validators on the peer-to-peer network, signing Warp messages when asked (ACP-118).
        self.staking = StakingNetwork(
            self.validators,
            settings.network_id,
            self._warp_verifier,
            base_port=settings.staking_port,
        )
        facts = NodeFacts(settings.network_id, VERSION, settings.host, settings.port)
        self.info_rpc = info_service(
            InfoService(facts, self.chains, self.validators, self.clock, self.staking.address_of)
        )
        self.devnet_rpc = ServiceDispatcher(
            devnet_validator_service(self.validators) | staking_network_service(self.staking)
        )
        self._register_node_checks()
        self.storage = storage
        self._funded = funded
        # Loaded first: every chain's replay reads it (see SharedMemory).
        self.shared_memory = SharedMemory(storage.shared_memory_journal())
        # avalanchego's names for the C-Chain: /ext/bc/evm/..., /ext/C/..., /ext/evm/...
        c_chain = self.host_evm(
            settings.c_chain, self.ids.c_chain, ("evm",), ("C", "evm"), atomic=self._c_atomic()
        )
        self.register(c_chain)
        self.register(
            host_platform_chain(self._platform_hosting(), self.shared_memory, self._id_of)
        )
        self.register(host_x_chain(self._x_hosting(), self.shared_memory))
        self._loop: asyncio.AbstractEventLoop | None = None
        self._starting: set[asyncio.Task[None]] = set()
        # The custom-EVM chains the P-Chain created (replayed on restart), then each new one.
        for blockchain in self.platform.chain.blockchains():
            self._host_blockchain(blockchain)
        self.platform.chain_listeners.append(self._on_new_blockchain)
        # Every chain has replayed its journal: the shared memory takes writes again.
        self.shared_memory.end_replay()

    def _c_atomic(self) -> AtomicHosting:
        """The C-Chain's atomic txs, trading with P and X through the shared memory."""
        ids = self.ids
        context = AtomicContext(
            ids.network_id,
            ID.from_string(ids.c_chain),
            ID.from_string(ids.avax_asset),
            frozenset({P_CHAIN_ID, ID.from_string(ids.x_chain)}),
        )
        ledger = AtomicLedger(context, self.shared_memory)
        return AtomicHosting(ledger, ids.network_id, self._id_of)

    def _platform_hosting(self) -> PlatformHosting:
        data_dir = self.storage.data_dir
        directory = chain_dir(data_dir, "P") if data_dir else None
        keys = tuple(k.private_key for k in self.dev_keys)
        stakers = tuple(
            LocalStaker(
                v.node_id,
                v.signer.public_key().to_bytes(),
                v.signer.prove_possession().to_bytes(),
            )
            for v in self.validators.validators
        )
        return PlatformHosting(
            self.ids,
            self.genesis.chains,
            keys,
            stakers,
            directory,
            self.storage.journal("P"),
            self.clock,
            proposer=self._proposer,
            uptime=self._uptime,
            index_enabled=self.settings.index_enabled,
            index_state=self.storage.index_state_path("P", "block"),
            index_allow_incomplete=self.settings.index_allow_incomplete,
            on_clock_move=self.clock.subscribe,
        )

    def _x_hosting(self) -> XHosting:
        data_dir = self.storage.data_dir
        return XHosting(
            self.ids,
            self.genesis.x_genesis,
            self.storage.journal("X"),
            genesis_time(chain_dir(data_dir, "X") if data_dir else None),
            dag_vertices=self.settings.x_dag_vertices,
            clock=self.clock,
            proposer=self._proposer,
            p_height=lambda: self.platform.chain.height,
            index_enabled=self.settings.index_enabled,
            index_states=lambda name: self.storage.index_state_path("X", name),
            index_allow_incomplete=self.settings.index_allow_incomplete,
        )

    @property
    def exchange(self) -> XRuntime:
        runtime = self.chains["X"].runtime
        assert isinstance(runtime, XRuntime)
        return runtime

    def _warp_verifier(self, chain_id: bytes) -> Verifier | None:
        """What the validators may sign for the chain `chain_id`: the P-Chain's L1 messages,
        or an EVM chain's accepted messages and blocks."""
        if chain_id == P_CHAIN_ID.raw:
            return PlatformVerifier(lambda: self.platform.chain)
        hosted = self.chains.get(str(ID(chain_id))) if len(chain_id) == 32 else None
        runtime = hosted.runtime if hosted is not None else None
        if isinstance(runtime, EvmRuntime):
            evm = runtime.chain
            return EvmVerifier(lambda: evm)
        return None

    def _proposer(self, height: int) -> StakingIdentity:
        """Who proposes the P block at `height`: the running validators in turn."""
        running = [v for v in self.validators if self.validators.running(v)]
        return running[height % len(running)].staking if running else self.validators.own.staking

    def _uptime(self, node_id: NodeID) -> tuple[float, bool]:
        """A devnet validator's measured uptime; a node the devnet does not run counts as up."""
        for validator in self.validators:
            if validator.node_id == node_id:
                return self.validators.uptime(validator), self.validators.running(validator)
        return 100.0, True

    @property
    def platform(self) -> PlatformRuntime:
        runtime = self.chains["P"].runtime
        assert isinstance(runtime, PlatformRuntime)
        return runtime

    def _host_blockchain(self, blockchain: Blockchain) -> HostedChain | None:
        """Hosts a chain a CreateChainTx created, if its VM is the custom EVM."""
        if str(blockchain.vm_id) != CUSTOM_EVM_VM.id:
            return None
        try:
            genesis = parse_genesis(blockchain.genesis_data, str(blockchain.blockchain_id))
        except InvalidParams as exc:
            # avalanchego logs the failure and leaves the chain unhosted; the P-Chain goes on.
            log.error("chain %s not started: %s", blockchain.blockchain_id, exc)
            return None
        settings = dataclasses.replace(
            self.settings.c_chain,
            alias=None,
            chain_id=genesis.config.chain_id,
            gas_limit=genesis.config.gas_limit,
            genesis_timestamp=genesis.timestamp,
        )
        hosted = self.host_evm(
            settings,
            str(blockchain.blockchain_id),
            subnet_id=str(blockchain.subnet_id),
            alloc=genesis.config.alloc,
            genesis=genesis.config,
            vm=CUSTOM_EVM_VM,
        )
        validators = ChainValidators(
            lambda: self.platform.chain, blockchain.subnet_id, self.validators, self.clock
        )
        validators_rpc = ServiceDispatcher(chain_validator_methods(validators))
        services = {**hosted.services, "validators": GorillaService(validators_rpc)}
        hosted = dataclasses.replace(hosted, services=services)
        self.register(hosted)
        return hosted

    def ensure_l1(self, name: str, genesis: bytes | None = None) -> HostedChain:
        """`--l1 NAME[=genesis.json]`: the custom-EVM chain named `name`, created with its subnet
        and converted to an L1 of the devnet's validators unless the P-Chain already has it."""
        custom = [c for c in self.platform.chain.blockchains() if str(c.vm_id) == CUSTOM_EVM_VM.id]
        for blockchain in custom:
            if blockchain.name == name:
                existing = self.chains.get(str(blockchain.blockchain_id))
                if existing is None:
                    raise InvalidParams(f"L1 {name}: its chain did not start (see the log)")
                return existing
        if genesis is None:
            genesis = devnet_l1_genesis(
                DEFAULT_L1_CHAIN_ID + len(custom),
                [k.address for k in self._funded],
                self.settings.balance * AVAX,
                self.settings.gas_limit,
                int(self.clock()),
            )
        parse_genesis(genesis)  # a genesis the chain would refuse stops here, before any tx
        wallet = PlatformWallet(
            self.platform,
            self.settings.network_id,
            ID.from_string(self.ids.avax_asset),
            self.dev_keys[0].private_key,
        )
        created = create_l1(
            wallet, name, ID.from_string(CUSTOM_EVM_VM.id), genesis, self.validators.validators
        )
        hosted = self.chains.get(str(created.blockchain_id))
        if hosted is None:
            raise InvalidParams(f"L1 {name}: its genesis was refused (see the log)")
        return hosted

    def _on_new_blockchain(self, blockchain: Blockchain) -> None:
        hosted = self._host_blockchain(blockchain)
        loop = self._loop
        if hosted is None or loop is None:
            return  # not started yet: `start` starts it with the others
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            # The P-Chain accepts blocks on the event loop: the chain starts beside.
            task = loop.create_task(hosted.runtime.start())
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)
        else:
            asyncio.run_coroutine_threadsafe(hosted.runtime.start(), loop).result(timeout=30)

    def _id_of(self, name: str) -> str | None:
        chain = self.chains.get(name)
        return chain.blockchain_id if chain else None

    def host_evm(
        self,
        chain: EvmChainSettings,
        blockchain_id: str,
        aliases: tuple[str, ...] = (),
        short_forms: tuple[str, ...] = (),
        *,
        subnet_id: str | None = None,
        alloc: tuple[Allocation, ...] | None = None,
        vm: Vm = EVM_VM,
        genesis: ChainConfig | None = None,
        atomic: AtomicHosting | None = None,
    ) -> HostedChain:
        """An EVM chain of this network: the dev accounts funded (unless `alloc` says), the
        node's request limits, index rules and admin; `register` it to host it."""
        settings = self.settings
        if alloc is None:
            alloc = tuple(Allocation(k.address, settings.balance * AVAX) for k in self._funded)
        hosting = EvmHosting(
            blockchain_id=blockchain_id,
            subnet_id=subnet_id or self.ids.primary_subnet,
            alloc=alloc,
            client_version=VERSION,
            limits=Limits(
                batch_items=settings.batch_request_limit, request_bytes=settings.max_request_bytes
            ),
            index_enabled=settings.index_enabled,
            index_allow_incomplete=settings.index_allow_incomplete,
            admin=self.admin,
            call_limits=CallLimits(settings.rpc_gas_cap, settings.rpc_evm_timeout),
            clock=self.clock,
            aliases=aliases,
            short_forms=short_forms,
            vm=vm,
            genesis=genesis,
            snow=snow_context(
                settings.network_id,
                blockchain_id,
                subnet_id or self.ids.primary_subnet,
                self.chains,
            ),
            atomic=atomic,
        )
        return host_evm_chain(
            chain, hosting, self.storage, lambda rt: self.evm_rpc_methods(rt, chain)
        )

    def evm_rpc_methods(self, rt: EvmRuntime, chain: EvmChainSettings) -> list[Method]:
        """The methods of an EVM chain of this network, with the node's dev accounts."""
        network_id = self.settings.network_id
        return evm_rpc_methods(rt, chain, network_id, self.keystore, self.dev_keys)

    def register(self, chain: HostedChain) -> None:
        """Hosts one more chain: its routes, index and health check come with it."""
        self.chains.register(chain)
        self.health.health.register(chain.label, chain.health, tags=(chain.subnet_id,))

    @property
    def c_chain(self) -> HostedChain:
        return self.chains["C"]

    @property
    def c(self) -> EvmRuntime:
        runtime = self.c_chain.runtime
        assert isinstance(runtime, EvmRuntime)
        return runtime

    @property
    def evm_rpc(self) -> Dispatcher:
        service = self.c_chain.services["rpc"]
        assert isinstance(service, EvmRpc)
        return service.dispatcher

    def vm_config(self) -> dict[str, Any]:
        config = {
            k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self.settings).items()
        }
        config.pop("mnemonic", None)
        return config

    def _register_node_checks(self) -> None:
        def disk_check() -> dict[str, Any]:
            usage = shutil.disk_usage(self.work_dir or Path.cwd())
            details = {
                "availableDiskBytes": usage.free,
                "availableDiskPercentage": usage.free * 100 // usage.total,
            }
            if usage.free < self.settings.health_min_disk_bytes:
                raise CheckFailed(
                    f"remaining available disk space ({usage.free}) is below minimum required "
                    f"available space ({self.settings.health_min_disk_bytes})",
                    details,
                )
            return details

        def database_check() -> None:
            if self.work_dir is not None and not self.work_dir.exists():
                raise CheckFailed(f"data directory {self.work_dir} is missing")

        health = self.health.health
        health.register(
            "network",
            lambda: {
                "connectedPeers": 0,
                "sendFailRate": 0,
                "timeSinceLastMsgReceived": "0s",
                "timeSinceLastMsgSent": "0s",
            },
        )
        health.register("router", lambda: {"longestRunningRequest": "0s", "outstandingRequests": 0})
        health.register("database", database_check)
        health.register("diskspace", disk_check)
        health.register("bootstrapped", lambda: [])
        self.health.readiness.register("bootstrapped", lambda: [])

    async def start(self) -> None:
        for chain in self.chains:
            await chain.runtime.start()
        self._loop = asyncio.get_running_loop()
        await self.health.start()
        await self.staking.start()

    async def stop(self) -> None:
        await self.staking.stop()
        await self.health.stop()
        for chain in reversed(list(self.chains)):
            await chain.runtime.stop()


def evm_rpc_methods(
    rt: EvmRuntime,
    chain: EvmChainSettings,
    network_id: int,
    keystore: Keystore,
    dev_keys: list[DevKey],
) -> list[Method]:
    """The JSON-RPC method groups an EVM chain serves at /ext/bc/{chain}/rpc and /ws."""
    proofs = ProofPolicy(chain.pruning_enabled, chain.historical_proof_query_window)
    return [
        *web3_net_methods(VERSION, evm_network_id(network_id, chain.chain_id)),
        *eth_methods(rt, proofs, [k.address for k in dev_keys]),
        *log_methods(rt),
        *personal_methods(rt, keystore),
        *signing_methods(rt, keystore),
        *access_list_methods(rt),
        *txpool_methods(rt),
        *debug_methods(rt),
        *simulate_methods(rt),
        *evm_methods(rt),
        *custom_evm_methods(rt),
        *cheat_methods(rt),
    ]


def _tags(params: dict[str, Any]) -> list[str]:
    tags = params.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        from snowfield.errors import InvalidParams

        raise InvalidParams("tags must be an array of strings")
    return tags


def evm_network_id(network_id: int, chain_id: int) -> int:
    """net_version: 1 on mainnet and the test network (as the spec says), else the chain id."""
    return 1 if network_id in (1, 5) else chain_id
