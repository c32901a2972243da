"""The chains a node hosts: each one's names, VM, runtime, API services, indexes and health
check, registered once; routes, data directories and health checks follow from here."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from snowfield.chains.platform.chain import PlatformChain
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.node.connections import Subscribers
from snowfield.node.index import BlockIndex
from snowfield.node.warp_signing import Verifier
from snowfield.rpc.dispatch import Dispatcher
from snowfield.rpc.service import ServiceDispatcher


class Runtime(Protocol):
    """What the node needs of a chain at work: start with the server, stop with it."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@dataclass(frozen=True, slots=True)
class EvmRpc:
    """geth-style JSON-RPC over HTTP POST (batches, geth error codes)."""

    dispatcher: Dispatcher


@dataclass(frozen=True, slots=True)
class EvmWebSocket:
    """The same JSON-RPC over a WebSocket, with subscriptions published by `hub`."""

    dispatcher: Dispatcher
    hub: Subscribers


@dataclass(frozen=True, slots=True)
class GorillaService:
    """An avalanchego-style service (`service.method`, one object param, -32000 errors)."""

    dispatcher: ServiceDispatcher


Service = EvmRpc | EvmWebSocket | GorillaService
ChainIds = Callable[[str], str | None]  # a chain alias or id → its blockchain id (cb58)


@dataclass(frozen=True, slots=True)
class Vm:
    """A VM by its id (cb58) and the name info.getVMs lists it under (avalanchego's alias)."""

    id: str
    name: str


# The VMs the node itself and the other VMs name (the primary network's chains, the posed
# networks' X and C, the L1s `--l1` makes); a VM nothing else names keeps its Vm in its folder.
# platformvm's id is the empty id; avm's and coreth's are their names padded to 32 bytes.
PLATFORM_VM = Vm("11111111111111111111111111111111LpoYY", "platform")
AVM_VM = Vm("jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq", "avm")
EVM_VM = Vm("mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6", "evm")
# The custom EVM's (subnet-evm's) VM id: a CreateChainTx naming it starts an EVM chain here.
CUSTOM_EVM_VM = Vm("srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy", "subnet-evm")


@dataclass(frozen=True, slots=True)
class HostedChain:
    """One chain of the network as this node hosts it.

    `services` maps the path suffix under /ext/bc/{name}/ to its service; `indexes` maps the
    index name under /ext/index/{alias}/ (block, tx, vtx) to its index; `short_forms` are the
    extra /ext/{form} paths avalanchego serves the chain's root service at; `warp` is what the
    validators sign for the chain when a peer asks (ACP-118), None: nothing."""

    alias: str | None
    blockchain_id: str
    subnet_id: str
    vm: Vm
    runtime: Runtime
    services: Mapping[str, Service]
    health: Callable[[], Any]
    indexes: Mapping[str, BlockIndex] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    short_forms: tuple[str, ...] = ()
    warp: Verifier | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the chain answers to under /ext/bc/: aliases first, then its id."""
        first = (self.alias,) if self.alias else ()
        return (*first, *self.aliases, self.blockchain_id)

    @property
    def label(self) -> str:
        """Its alias, else its blockchain id: the name of its health check and data folder."""
        return self.alias or self.blockchain_id


class ChainRegistry:
    """The hosted chains by every name they answer to."""

    def __init__(self) -> None:
        self._chains: list[HostedChain] = []
        self._by_name: dict[str, HostedChain] = {}

    def register(self, chain: HostedChain) -> None:
        taken = [n for n in chain.names if n in self._by_name]
        if taken:
            raise ValueError(f"chain name(s) already registered: {', '.join(taken)}")
        self._chains.append(chain)
        for name in chain.names:
            self._by_name[name] = chain

    def __iter__(self) -> Iterator[HostedChain]:
        return iter(self._chains)

    def __len__(self) -> int:
        return len(self._chains)

    def since(self, count: int) -> list[HostedChain]:
        """The chains registered after the first `count` (the routes of late chains)."""
        return self._chains[count:]

    def __getitem__(self, name: str) -> HostedChain:
        return self._by_name[name]

    def get(self, name: str) -> HostedChain | None:
        return self._by_name.get(name)

    def blockchain_id(self, name: str) -> str | None:
        """The blockchain id (cb58) of the hosted chain `name` names, if any."""
        chain = self._by_name.get(name)
        return chain.blockchain_id if chain else None

    def verifier_of(self, chain_id: bytes) -> Verifier | None:
        """What the validators may sign for the hosted chain `chain_id` names."""
        chain = self._by_name.get(str(ID(chain_id))) if len(chain_id) == 32 else None
        return chain.warp if chain else None

    def platform(self) -> PlatformChain:
        """The P-Chain's state, which every chain reads validators from (avalanchego's
        validators.State); read when asked, as it may be hosted after its readers."""
        hosted = self._by_name.get("P")
        chain = getattr(hosted.runtime, "chain", None) if hosted is not None else None
        if not isinstance(chain, PlatformChain):
            raise InvalidParams("the P-Chain is not running")
        return chain
