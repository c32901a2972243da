"""The X-Chain hosted by the node: its genesis (the AVAX asset funding the dev keys), runtime
(issue, build, journal, containers for the tx, vtx and block indexes) and avm.* service."""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from snowfield.chains.atomic import SharedMemory
from snowfield.chains.evm.journal import Journal
from snowfield.chains.exchange.chain import BLOCK, VERTEX, Accepted, ExchangeChain
from snowfield.chains.exchange.genesis import genesis_state
from snowfield.chains.exchange.state import ExchangeConfig
from snowfield.crypto.staking import StakingIdentity
from snowfield.formats.exchange.txs import Tx
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.proposervm import ProposerBlock, StatelessBlock, signing_header
from snowfield.node.containers import Container, ContainerList
from snowfield.node.health import chain_health
from snowfield.node.index import BlockIndex, IndexState
from snowfield.node.methods.avm import avm_methods
from snowfield.node.networks import NetworkIds
from snowfield.node.registry import AVM_VM, GorillaService, HostedChain
from snowfield.rpc.service import ServiceDispatcher

Proposer = Callable[[int], StakingIdentity | None]
_RECORD = struct.Struct(">cQ")  # kind (V vertex, B block container), accepted unix ns


@dataclass(frozen=True, slots=True)
class XHosting:
    """What hosting the X-Chain takes from the node."""

    ids: NetworkIds
    genesis: Tx  # the AVAX CreateAssetTx
    journal: Journal
    genesis_time: int
    dag_vertices: int = 0
    clock: Callable[[], float] = time.time
    proposer: Proposer = lambda _height: None
    p_height: Callable[[], int] = lambda: 0
    index_enabled: bool = True
    index_states: Callable[[str], Path | None] = lambda _name: None
    index_allow_incomplete: bool = False


class XContainers:
    """The X-Chain's containers as its three indexes serve them."""

    def __init__(self) -> None:
        self.txs = ContainerList()
        self.vertices = ContainerList()
        self.blocks = ContainerList()  # ProposerVM containers of the linear chain's blocks
        self.block_ids: dict[ID, int] = {}  # inner StandardBlock id → its height

    def add(self, accepted: Accepted, container_id: ID, data: bytes, accepted_ns: int) -> None:
        """`container_id` and `data`: the vertex's, or the block's ProposerVM container's."""
        for tx in accepted.txs:
            self.txs.add(Container(tx.id, tx.encode(), accepted_ns))
        if accepted.kind == VERTEX:
            self.vertices.add(Container(container_id, data, accepted_ns))
        else:
            self.blocks.add(Container(container_id, data, accepted_ns))
            self.block_ids[accepted.id] = accepted.height


class XRuntime:
    """The X-Chain at work: issued txs are built into the next vertex or block on the event
    loop (at once, after the txs issued in the same loop turn), journaled and indexed."""

    def __init__(self, chain: ExchangeChain, hosting: XHosting) -> None:
        self.chain = chain
        self.hosting = hosting
        self.containers = XContainers()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scheduled = False
        for record in hosting.journal.records():
            self._replay(record)

    def _replay(self, record: bytes) -> None:
        kind, accepted_ns = _RECORD.unpack_from(record)
        data = record[_RECORD.size :]
        seconds = accepted_ns // 1_000_000_000
        if kind == b"V":
            accepted = self.chain.replay(VERTEX, data, seconds)
            self.containers.add(accepted, accepted.id, data, accepted_ns)
        else:
            wrapper = ProposerBlock.parse(data)
            accepted = self.chain.replay(BLOCK, wrapper.inner_block, seconds)
            self.containers.add(accepted, wrapper.id, data, accepted_ns)

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()

    async def stop(self) -> None:
        self._loop = None

    def now(self) -> int:
        return int(self.hosting.clock())

    def issue(self, tx: Tx) -> ID:
        tx_id = self.chain.issue(tx, self.now())
        if self._loop is None:
            self.build()
        elif not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.build)
        return tx_id

    def build(self) -> None:
        self._scheduled = False
        for accepted in self.chain.build(self.now()):
            self._accept(accepted)

    def linearize(self) -> None:
        for accepted in self.chain.linearize(self.now()):
            self._accept(accepted)

    def _accept(self, accepted: Accepted) -> None:
        accepted_ns = int(self.hosting.clock() * 1_000_000_000)
        container_id, data, kind = accepted.id, accepted.data, b"V"
        if accepted.kind == BLOCK:
            (container_id, data), kind = self._wrap(accepted), b"B"
        self.hosting.journal.append(_RECORD.pack(kind, accepted_ns) + data)
        self.containers.add(accepted, container_id, data, accepted_ns)

    def _wrap(self, accepted: Accepted) -> tuple[ID, bytes]:
        """The block's ProposerVM container, signed by the validator whose turn it is."""
        last = self.containers.blocks
        parent = ID(last.id_of(last.last_height())) if len(last) else self.chain.blocks[0].id
        proposer = self.hosting.proposer(accepted.height)
        unsigned = StatelessBlock(
            parent_id=parent,
            inner_block=accepted.data,
            timestamp=accepted.time,
            p_chain_height=self.hosting.p_height(),
            certificate=proposer.certificate_der if proposer else b"",
        )
        container_id = unsigned.id  # the signature is not part of the id
        if proposer is None:
            return container_id, unsigned.encode()
        header = signing_header(self.hosting_chain_id, parent, container_id)
        return container_id, replace(unsigned, signature=proposer.sign(header)).encode()

    @property
    def hosting_chain_id(self) -> ID:
        return self.chain.state.config.chain_id


def host_x_chain(hosting: XHosting, shared_memory: SharedMemory) -> HostedChain:
    """The X-Chain, answering at /ext/bc/{X,avm,<id>} and /ext/{X,avm}."""
    ids = hosting.ids
    config = ExchangeConfig.for_network(
        ids.network_id, ID.from_string(ids.x_chain), ID.from_string(ids.avax_asset)
    )
    peers = (P_CHAIN_ID, ID.from_string(ids.c_chain))
    state = genesis_state(config, hosting.genesis, peers)
    chain = ExchangeChain(state, shared_memory, hosting.genesis_time, hosting.dag_vertices)
    runtime = XRuntime(chain, hosting)
    indexes = _indexes(runtime, hosting)
    service = ServiceDispatcher(avm_methods(runtime, ids))
    return HostedChain(
        alias="X",
        blockchain_id=ids.x_chain,
        subnet_id=ids.primary_subnet,
        vm=AVM_VM,
        runtime=runtime,
        services={"": GorillaService(service)},
        health=lambda: _health(runtime),
        indexes=indexes,
        aliases=("avm",),
        short_forms=("X", "avm"),
    )


def _indexes(runtime: XRuntime, hosting: XHosting) -> dict[str, BlockIndex]:
    sources = {
        "tx": runtime.containers.txs,
        "vtx": runtime.containers.vertices,
        "block": runtime.containers.blocks,
    }
    indexes = {}
    for name, source in sources.items():
        state = IndexState.resolve(
            hosting.index_states(name),
            enabled=hosting.index_enabled,
            allow_incomplete=hosting.index_allow_incomplete,
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
