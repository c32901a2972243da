"""P-Chain blocks, Apricot (0-4) and Banff (29-32); id = sha256(block bytes incl. version).

Public API: the block dataclasses, `encode_block(block)`, `decode_block(data)`, `block_id(block)`.
Txs inside blocks are `Tx` in their version-less form; the ProposerVM wrapper
(formats.proposervm) carries `encode_block`'s bytes as its inner block.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Self

from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.platform.txs import Tx
from snowfield.formats.platform.types import PLATFORM_TYPES, TX_MAX_SIZE, Block
from snowfield.formats.registry import pack_struct, read_id

_MIN_TX_SIZE = 4 + 4


def _read_txs(reader: Unpacker) -> tuple[Tx, ...]:
    return tuple(reader.items(Tx.unpack, min_item_size=_MIN_TX_SIZE))


@dataclass(frozen=True, slots=True)
class ApricotOptionBlock(Block):
    """Abort or commit option of a proposal block: parent and height only."""

    parent_id: ID
    height: int

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.parent_id.raw).u64(self.height)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_id(reader), reader.u64())


@PLATFORM_TYPES.register(1)
class ApricotAbortBlock(ApricotOptionBlock):
    __slots__ = ()


@PLATFORM_TYPES.register(2)
class ApricotCommitBlock(ApricotOptionBlock):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ApricotSingleTxBlock(Block):
    """Proposal or atomic block: parent, height and one tx."""

    parent_id: ID
    height: int
    tx: Tx

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.parent_id.raw).u64(self.height)
        self.tx.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_id(reader), reader.u64(), Tx.unpack(reader))


@PLATFORM_TYPES.register(0)
class ApricotProposalBlock(ApricotSingleTxBlock):
    __slots__ = ()


@PLATFORM_TYPES.register(4)
class ApricotAtomicBlock(ApricotSingleTxBlock):
    __slots__ = ()


@PLATFORM_TYPES.register(3)
@dataclass(frozen=True, slots=True)
class ApricotStandardBlock(Block):
    """Decision txs applied in order."""

    parent_id: ID
    height: int
    txs: tuple[Tx, ...]

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.parent_id.raw).u64(self.height).items(self.txs, pack_struct)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_id(reader), reader.u64(), _read_txs(reader))


@dataclass(frozen=True, slots=True)
class BanffOptionBlock(Block):
    """Banff abort or commit: the chain time, parent and height."""

    time: int
    parent_id: ID
    height: int

    def pack(self, packer: Packer) -> None:
        packer.u64(self.time).fixed(self.parent_id.raw).u64(self.height)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u64(), read_id(reader), reader.u64())


@PLATFORM_TYPES.register(30)
class BanffAbortBlock(BanffOptionBlock):
    __slots__ = ()


@PLATFORM_TYPES.register(31)
class BanffCommitBlock(BanffOptionBlock):
    __slots__ = ()


@PLATFORM_TYPES.register(29)
@dataclass(frozen=True, slots=True)
class BanffProposalBlock(Block):
    """Banff proposal: time, decision txs applied first, then the proposal tx."""

    time: int
    decision_txs: tuple[Tx, ...]
    parent_id: ID
    height: int
    tx: Tx

    def pack(self, packer: Packer) -> None:
        packer.u64(self.time).items(self.decision_txs, pack_struct)
        packer.fixed(self.parent_id.raw).u64(self.height)
        self.tx.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        time, decision_txs = reader.u64(), _read_txs(reader)
        return cls(time, decision_txs, read_id(reader), reader.u64(), Tx.unpack(reader))


@PLATFORM_TYPES.register(32)
@dataclass(frozen=True, slots=True)
class BanffStandardBlock(Block):
    """Banff standard block: the chain time and decision txs."""

    time: int
    parent_id: ID
    height: int
    txs: tuple[Tx, ...]

    def pack(self, packer: Packer) -> None:
        packer.u64(self.time).fixed(self.parent_id.raw).u64(self.height)
        packer.items(self.txs, pack_struct)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u64(), read_id(reader), reader.u64(), _read_txs(reader))


def encode_block(block: Block) -> bytes:
    return PLATFORM_TYPES.encode(block, max_size=TX_MAX_SIZE)


def decode_block(data: bytes) -> Block:
    """Parse block bytes; InvalidParams on truncated, trailing, unknown or invalid input."""
    return PLATFORM_TYPES.decode(data, Block, max_size=TX_MAX_SIZE)


def block_id(block: Block) -> ID:
    return ID(hashlib.sha256(encode_block(block)).digest())
