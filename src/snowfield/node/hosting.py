"""The one VM-host interface, in avalanchego's shape: a chain to host (ChainSpec, its chain
parameters), what the node lends every VM (NodeContext, its snow.Context), and the factory of
a VM (VmFactory) that hosts the chains naming its id."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from snowfield.chains.atomic import SharedMemory
from snowfield.chains.clock import NetworkClock
from snowfield.chains.platform.records import Blockchain
from snowfield.config import NetworkSettings
from snowfield.crypto.keys import DevKey
from snowfield.node.admin import Admin
from snowfield.node.keystore import Keystore
from snowfield.node.networks import NetworkIds
from snowfield.node.primary_genesis import PrimaryGenesis
from snowfield.node.registry import ChainRegistry, HostedChain, Vm
from snowfield.node.storage import NodeStorage
from snowfield.node.validators import ValidatorSet


@dataclass(frozen=True, slots=True)
class ChainSpec:
    """One chain to host: its ids, the names it answers to, and the genesis its CreateChainTx
    carries (empty for the primary network's chains, whose VMs build theirs from the node's
    settings and the network genesis)."""

    blockchain_id: str
    subnet_id: str
    vm_id: str
    alias: str | None = None
    aliases: tuple[str, ...] = ()
    short_forms: tuple[str, ...] = ()  # the extra /ext/{form} paths of its root service
    genesis: bytes = b""


@dataclass(frozen=True, slots=True)
class NodeContext:
    """What the node lends each chain it hosts: the network (settings, genesis, ids, clock,
    validators, shared memory), its own services (storage, admin, keystore, dev keys), the
    chains already hosted, and `create_chain`, which a VM that creates chains (the P-Chain)
    tells of each one."""

    settings: NetworkSettings
    genesis: PrimaryGenesis
    storage: NodeStorage
    clock: NetworkClock
    shared_memory: SharedMemory
    validators: ValidatorSet
    chains: ChainRegistry
    admin: Admin
    keystore: Keystore
    dev_keys: tuple[DevKey, ...]
    funded: tuple[DevKey, ...]  # the dev keys and ewoq, funded on chains the devnet makes
    version: str  # the node's client version
    create_chain: Callable[[Blockchain], None]

    @property
    def ids(self) -> NetworkIds:
        return self.genesis.ids


class VmFactory(Protocol):
    """A VM the node runs (avalanchego's vms.Factory): the composition root lists them, and
    the node hosts each chain with the factory of the VM the chain names."""

    @property
    def vm(self) -> Vm: ...

    def host(self, chain: ChainSpec, node: NodeContext) -> HostedChain | None:
        """The chain at work with its services, indexes and health check, for the node to
        register; None when this VM does not run `chain` here (a second P, X or C-Chain, a
        genesis the VM refuses)."""
        ...
