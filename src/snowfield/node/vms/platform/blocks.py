"""The identity of the P-Chain's accepted blocks as the network sees them: each one wrapped in a
ProposerVM container signed by the validator that proposed it, with its container id.

Public API: `PContainer`, `PlatformBlocks` (`wrap`, `add`, `at`, `by_inner_id`),
`encode_record`/`decode_record` (the journal's framing of one container).
"""

from __future__ import annotations

import struct
import threading
from dataclasses import dataclass, replace

from snowfield.chains.platform.blocks import AcceptedBlock
from snowfield.crypto.staking import StakingIdentity, verify_signature
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.platform.blocks import BanffAbortBlock, BanffCommitBlock
from snowfield.formats.proposervm import (
    OptionBlock,
    ProposerBlock,
    StatelessBlock,
    signing_header,
)

# A journal record: magic, accepted time (unix ns), container bytes. Records without the magic
# are the inner block bytes an older snowfield journaled; they replay wrapped unsigned.
_MAGIC = b"PVM1"
_NS = struct.Struct(">Q")


@dataclass(frozen=True, slots=True)
class PContainer:
    """One accepted P-Chain block: its container (what the index serves) and inner block."""

    id: ID  # the ProposerVM container id (the genesis block's own id at height 0)
    inner_id: ID  # the platformvm block id (what platform.getBlock takes)
    height: int
    timestamp: int  # the block's time, unix seconds
    accepted_ns: int
    data: bytes  # container bytes (at height 0: the genesis block's bytes)
    inner: bytes


def encode_record(container: PContainer) -> bytes:
    return _MAGIC + _NS.pack(container.accepted_ns) + container.data


def decode_record(record: bytes) -> tuple[int | None, bytes, bool]:
    """(accepted ns or None, bytes, whether the bytes are a container) of one journal record."""
    if record.startswith(_MAGIC) and len(record) >= len(_MAGIC) + _NS.size:
        (accepted_ns,) = _NS.unpack_from(record, len(_MAGIC))
        return accepted_ns, record[len(_MAGIC) + _NS.size :], True
    return None, record, False


def _is_option(block: AcceptedBlock) -> bool:
    return isinstance(block.block, BanffCommitBlock | BanffAbortBlock)


class PlatformBlocks:
    """Every accepted block's container, by height, container id and inner id.

    Invariant: entry h's container has entry h-1's container id as its parent; the genesis
    block (height 0) is pre-fork, so its container id is its own id. Commit/abort blocks are
    ProposerVM options (unsigned, child of the proposal's container); others are signed."""

    def __init__(self, genesis_id: ID, genesis_bytes: bytes, genesis_time: int) -> None:
        genesis = PContainer(
            genesis_id, genesis_id, 0, genesis_time, 0, genesis_bytes, genesis_bytes
        )
        self._entries: list[PContainer] = [genesis]
        self._by_id: dict[ID, int] = {genesis_id: 0}
        self._by_inner: dict[ID, int] = {genesis_id: 0}
        self._lock = threading.Lock()

    @property
    def last(self) -> PContainer:
        return self._entries[-1]

    def wrap(
        self, block: AcceptedBlock, proposer: StakingIdentity | None, accepted_ns: int
    ) -> PContainer:
        """The container of `block`, the next block after `last`; `proposer` signs it (None:
        unsigned, as a block built before the proposer window closes is)."""
        parent = self.last.id
        wrapper: ProposerBlock
        if _is_option(block):
            wrapper = OptionBlock(parent, block.data)
        else:
            unsigned = StatelessBlock(
                parent_id=parent,
                inner_block=block.data,
                timestamp=block.time,
                p_chain_height=block.height - 1,
                certificate=proposer.certificate_der if proposer else b"",
            )
            wrapper = unsigned
            container_id = unsigned.id
            if proposer is not None:
                # The signature covers a header naming the id, and the id excludes the
                # signature, so signing does not change the id.
                header = signing_header(P_CHAIN_ID, parent, container_id)
                wrapper = replace(unsigned, signature=proposer.sign(header))
        return PContainer(
            container_id if not _is_option(block) else wrapper.id,
            block.id,
            block.height,
            block.time,
            accepted_ns,
            wrapper.encode(),
            block.data,
        )

    def parse(self, data: bytes) -> ProposerBlock:
        """A journaled container, checked to extend `last` and (if signed) its signature."""
        wrapper = ProposerBlock.parse(data)
        if wrapper.parent_id != self.last.id:
            raise InvalidParams(
                f"P-Chain journal: container {wrapper.id} does not extend {self.last.id}"
            )
        if isinstance(wrapper, StatelessBlock) and wrapper.certificate:
            header = signing_header(P_CHAIN_ID, wrapper.parent_id, wrapper.id)
            if not verify_signature(wrapper.certificate, header, wrapper.signature):
                raise InvalidParams(f"P-Chain journal: container {wrapper.id} has a bad signature")
        return wrapper

    def add(self, container: PContainer) -> None:
        with self._lock:
            if container.height != len(self._entries):
                raise InvalidParams(f"P-Chain block {container.height} is out of order")
            self._entries.append(container)
            self._by_id[container.id] = container.height
            self._by_inner[container.inner_id] = container.height

    def at(self, height: int) -> PContainer:
        return self._entries[height]

    def by_inner_id(self, inner_id: ID) -> PContainer | None:
        height = self._by_inner.get(inner_id)
        return None if height is None else self._entries[height]

    # --- the index API's view (see node/index.py ContainerSource) ---------------------------

    def last_height(self) -> int:
        return len(self._entries) - 1

    def id_of(self, height: int) -> bytes:
        return self._entries[height].id.raw

    def container(self, height: int) -> bytes:
        return self._entries[height].data

    def accepted_ns(self, height: int) -> int:
        return self._entries[height].accepted_ns

    def container_height(self, container_id: bytes) -> int | None:
        return self._by_id.get(ID(container_id)) if len(container_id) == 32 else None
