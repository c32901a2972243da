"""The identity of an EVM chain's accepted blocks as the network sees them: ProposerVM
containers and their ids (the chain's own, whether or not an index serves them)."""

from __future__ import annotations

import threading

from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.model import Block
from snowfield.formats.cb58 import encode_cb58
from snowfield.formats.ids import ID
from snowfield.formats.proposervm import StatelessBlock


class BlockIds:
    """Container ids of every accepted block, computed on demand and kept.

    Invariant: the genesis block is pre-fork (its id is its hash); every later block is wrapped
    in an unsigned post-fork ProposerVM block whose parent is the previous container id."""

    def __init__(self, chain: EvmChain) -> None:
        self.chain = chain
        self._ids: list[bytes] = []
        self._by_id: dict[bytes, int] = {}
        self._lock = threading.Lock()
        chain.on_rewind(self._rewind)

    def _rewind(self, height: int, _cut: tuple[Block, ...]) -> None:
        """Forgets the ids of the blocks a revert cut (evm_revert, anvil_reset)."""
        with self._lock:
            for container_id in self._ids[height + 1 :]:
                del self._by_id[container_id]
            del self._ids[height + 1 :]

    def _extend(self, number: int) -> None:
        with self._lock:
            while len(self._ids) <= number:
                height = len(self._ids)
                block = self.chain.blocks[height]
                raw = block.hash if height == 0 else self.wrap(block, self._ids[-1]).id.raw
                self._by_id[raw] = height
                self._ids.append(raw)

    @staticmethod
    def wrap(block: Block, parent_id: bytes) -> StatelessBlock:
        # Unsigned post-fork blocks: what a single-validator network's proposer builds.
        return StatelessBlock(
            parent_id=ID(parent_id),
            inner_block=block.body,
            timestamp=block.header.timestamp,
            p_chain_height=0,
        )

    def id_of(self, number: int) -> bytes:
        self._extend(number)
        return self._ids[number]

    def container(self, number: int) -> bytes:
        """The container bytes of the block at `number` (> 0)."""
        return self.wrap(self.chain.blocks[number], self.id_of(number - 1)).encode()

    def height_of(self, container_id: bytes) -> int | None:
        self._extend(self.chain.head.number)
        return self._by_id.get(container_id)

    # --- the index API's view (see node/index.py ContainerSource) ---------------------------

    def last_height(self) -> int:
        return self.chain.head.number

    def accepted_ns(self, height: int) -> int:
        return self.chain.blocks[height].accepted_ns

    def container_height(self, container_id: bytes) -> int | None:
        return self.height_of(container_id)

    def last_accepted_id(self) -> str:
        return encode_cb58(self.id_of(self.chain.head.number))
