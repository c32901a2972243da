"""The X-Chain at work: issued txs built into vertices, then (once linearized) blocks wrapped
in ProposerVM containers, journaled and kept for the tx, vtx and block indexes."""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import Callable
from dataclasses import replace

from snowfield.chains.exchange.chain import BLOCK, VERTEX, Accepted, ExchangeChain
from snowfield.chains.journal import Journal
from snowfield.crypto.staking import StakingIdentity
from snowfield.formats.exchange.txs import Tx
from snowfield.formats.ids import ID
from snowfield.formats.proposervm import ProposerBlock, StatelessBlock, signing_header
from snowfield.node.containers import Container, ContainerList

Proposer = Callable[[int], StakingIdentity | None]
_RECORD = struct.Struct(">cQ")  # kind (V vertex, B block container), accepted unix ns


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

    def __init__(
        self,
        chain: ExchangeChain,
        journal: Journal,
        clock: Callable[[], float] = time.time,
        proposer: Proposer = lambda _height: None,
        p_height: Callable[[], int] = lambda: 0,
    ) -> None:
        self.chain = chain
        self.journal = journal
        self._clock = clock
        self._proposer = proposer
        self._p_height = p_height  # the P-Chain height a block container names
        self.containers = XContainers()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scheduled = False
        for record in journal.records():
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
        return int(self._clock())

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

    def _accept(self, accepted: Accepted) -> None:
        accepted_ns = int(self._clock() * 1_000_000_000)
        container_id, data, kind = accepted.id, accepted.data, b"V"
        if accepted.kind == BLOCK:
            (container_id, data), kind = self._wrap(accepted), b"B"
        self.journal.append(_RECORD.pack(kind, accepted_ns) + data)
        self.containers.add(accepted, container_id, data, accepted_ns)

    def _wrap(self, accepted: Accepted) -> tuple[ID, bytes]:
        """The block's ProposerVM container, signed by the validator whose turn it is."""
        last = self.containers.blocks
        parent = ID(last.id_of(last.last_height())) if len(last) else self.chain.blocks[0].id
        proposer = self._proposer(accepted.height)
        unsigned = StatelessBlock(
            parent_id=parent,
            inner_block=accepted.data,
            timestamp=accepted.time,
            p_chain_height=self._p_height(),
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
