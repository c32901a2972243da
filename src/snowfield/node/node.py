"""The devnet node: the chains it hosts, each by the factory of its VM; the network's clock
and validators; and the node-wide services (health, info, admin, keystore, devnet)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from snowfield.chains.atomic import SharedMemory
from snowfield.chains.clock import NetworkClock
from snowfield.chains.evm.customgenesis import parse_genesis
from snowfield.chains.platform.records import Blockchain
from snowfield.config import NetworkSettings
from snowfield.config.network import DEMO_CLOCK_JUMP
from snowfield.crypto.keys import EWOQ_KEY, derive_keys, key_from_bytes
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.timefmt import format_rfc3339
from snowfield.node.admin import Admin, vm_config
from snowfield.node.health import HealthService, health_service, register_node_checks
from snowfield.node.hosting import ChainSpec, NodeContext, VmFactory
from snowfield.node.info import InfoService, NodeFacts, info_service
from snowfield.node.keystore import Keystore
from snowfield.node.l1_boot import DEFAULT_L1_CHAIN_ID, PlatformWallet, create_l1, devnet_l1_genesis
from snowfield.node.networks import NetworkIds
from snowfield.node.primary_genesis import WEI_PER_AVAX, primary_genesis
from snowfield.node.registry import (
    AVM_VM,
    CUSTOM_EVM_VM,
    EVM_VM,
    PLATFORM_VM,
    ChainRegistry,
    EvmRpc,
    HostedChain,
)
from snowfield.node.staking_network import StakingNetwork, staking_network_service
from snowfield.node.storage import NodeStorage
from snowfield.node.validators import ValidatorSet, devnet_validator_service, load_validators
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.node.vms.platform.runtime import PlatformRuntime
from snowfield.rpc.dispatch import Dispatcher
from snowfield.rpc.service import ServiceDispatcher

log = logging.getLogger("snowfield.node")
VERSION = "snowfield/v0.1.0"


def primary_chains(ids: NetworkIds) -> tuple[ChainSpec, ...]:
    """The primary network's chains, in the order the node hosts them, under avalanchego's
    names: /ext/bc/{C,evm,<id>}, /ext/bc/{P,platform,<id>}, /ext/bc/{X,avm,<id>}, and each
    one's root service at /ext/{alias} too."""
    primary = ids.primary_subnet
    return (
        ChainSpec(ids.c_chain, primary, EVM_VM.id, "C", ("evm",), ("C", "evm")),
        ChainSpec(str(P_CHAIN_ID), primary, PLATFORM_VM.id, "P", ("platform",), ("P", "platform")),
        ChainSpec(ids.x_chain, primary, AVM_VM.id, "X", ("avm",), ("X", "avm")),
    )


class Node:
    """One devnet node. Build it with the VMs it runs, `await start()`, serve
    `create_node_app(node)`, `await stop()`.

    The chains it hosts are in `chains`; routes, health checks and data folders follow from
    their registrations."""

    def __init__(
        self, settings: NetworkSettings, storage: NodeStorage, vms: Sequence[VmFactory]
    ) -> None:
        self.settings = settings
        self.storage = storage
        fresh = storage.fresh
        dev_keys = tuple(derive_keys(settings.mnemonic, settings.accounts))
        self.dev_keys = list(dev_keys)
        # The AVAX asset and the X and C ids come from the genesis (or the posed network's).
        self.genesis = primary_genesis(settings, [k.private_key for k in dev_keys])
        self.ids = self.genesis.ids
        storage.claim(
            {
                "networkId": settings.network_id,
                "chainId": settings.c_chain.chain_id,
                # The mnemonic's first account stands for it (the mnemonic is not written).
                "firstAccount": "0x" + dev_keys[0].address.hex() if dev_keys else None,
            }
        )
        funded = (*dev_keys, key_from_bytes(EWOQ_KEY))
        self.keystore = Keystore(list(funded))
        self.admin = Admin(storage.profiles, vm_config(settings))
        self.health = HealthService(format_rfc3339, settings.health_check_frequency)
        self.health_rpc = health_service(self.health)
        self.chains = ChainRegistry()
        # One time for the whole network: every chain reads it, the time controls move it.
        self.clock = NetworkClock()
        if settings.demo and fresh:
            # The P-Chain demo moves the network clock on past its stakers' end so that their
            # rewards are paid (avalanchego's local network stakes for a day at least): a new
            # network starts that far in the past, so the demo brings it to the present.
            self.clock.offset = -DEMO_CLOCK_JUMP
        validators = load_validators(storage.data_dir, settings.validators)
        self.validators = ValidatorSet(validators, self.clock)
        # The validators on the peer-to-peer network, signing Warp messages when asked (ACP-118).
        self.staking = StakingNetwork(
            self.validators,
            settings.network_id,
            self.chains.verifier_of,
            base_port=settings.staking_port,
        )
        self.vms = {factory.vm.id: factory for factory in vms}
        facts = NodeFacts(settings.network_id, VERSION, settings.host, settings.port)
        listed = {vm_id: [factory.vm.name] for vm_id, factory in self.vms.items()}
        self.info_rpc = info_service(
            InfoService(
                facts, self.chains, self.validators, self.clock, self.staking.address_of, listed
            )
        )
        self.devnet_rpc = ServiceDispatcher(
            devnet_validator_service(self.validators) | staking_network_service(self.staking)
        )
        register_node_checks(self.health, storage.data_dir, settings.health_min_disk_bytes)
        # Loaded first: every chain's replay reads it (see SharedMemory).
        self.shared_memory = SharedMemory(storage.shared_memory_journal())
        # What every VM gets from the node; the VMs build the rest of their chains themselves.
        self.context = NodeContext(
            settings=settings,
            genesis=self.genesis,
            storage=storage,
            clock=self.clock,
            shared_memory=self.shared_memory,
            validators=self.validators,
            chains=self.chains,
            admin=self.admin,
            keystore=self.keystore,
            dev_keys=dev_keys,
            funded=funded,
            version=VERSION,
            create_chain=self._create_chain,
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._starting: set[asyncio.Task[None]] = set()
        # The chains the P-Chain created, waiting for the primary network's (None: booted).
        self._created: list[Blockchain] | None = []
        self._boot()

    def _boot(self) -> None:
        """Hosts the primary network's chains, then the chains the P-Chain created (replayed
        from its journal), as avalanchego's chain manager starts them after the P-Chain."""
        for chain in primary_chains(self.ids):
            if self.host(chain) is None:
                raise ValueError(f"no VM registered to run the {chain.alias}-Chain")
        created, self._created = self._created or [], None
        for blockchain in created:
            self._host_created(blockchain)
        # Every chain has replayed its journal: the shared memory takes writes again.
        self.shared_memory.end_replay()

    def host(self, chain: ChainSpec) -> HostedChain | None:
        """Hosts `chain` with the factory of its VM: its routes, index and health check come
        with it. None: no VM this node runs hosts it."""
        factory = self.vms.get(chain.vm_id)
        hosted = factory.host(chain, self.context) if factory is not None else None
        if hosted is not None:
            self.register(hosted)
        return hosted

    def register(self, chain: HostedChain) -> None:
        """Hosts one more chain: its routes, index and health check come with it."""
        self.chains.register(chain)
        self.health.health.register(chain.label, chain.health, tags=(chain.subnet_id,))

    def _host_created(self, blockchain: Blockchain) -> HostedChain | None:
        """A chain a CreateChainTx made, if a VM this node runs hosts it."""
        blockchain_id = str(blockchain.blockchain_id)
        if self.chains.get(blockchain_id) is not None:
            return None  # the primary network's X and C, already hosted
        vm_id, subnet_id = str(blockchain.vm_id), str(blockchain.subnet_id)
        return self.host(
            ChainSpec(blockchain_id, subnet_id, vm_id, genesis=blockchain.genesis_data)
        )

    def _create_chain(self, blockchain: Blockchain) -> None:
        """The P-Chain created `blockchain` (or replayed its creation): host it, and on a
        running node start it at once."""
        if self._created is not None:
            self._created.append(blockchain)  # booting: after the primary network's chains
            return
        hosted = self._host_created(blockchain)
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
                [k.address for k in self.context.funded],
                self.settings.balance * WEI_PER_AVAX,
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

    @property
    def platform(self) -> PlatformRuntime:
        runtime = self.chains["P"].runtime
        assert isinstance(runtime, PlatformRuntime)
        return runtime

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
