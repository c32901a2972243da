"""The X-Chain's post-linearization StandardBlock: `parentID | height u64 | time u64 |
merkleRoot | list<tx>` behind type id 20; its id is sha256 of its bytes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Self

from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.exchange.txs import Tx
from snowfield.formats.exchange.types import AVM_TYPES, TX_MAX_SIZE
from snowfield.formats.ids import ID
from snowfield.formats.registry import Encodable, read_id

_EMPTY_ROOT = ID(bytes(32))  # avalanchego leaves the merkle root empty


def _pack_tx(packer: Packer, tx: Tx) -> None:
    tx.pack(packer)


@AVM_TYPES.register(20)
@dataclass(frozen=True, slots=True)
class StandardBlock(Encodable):
    parent_id: ID
    height: int
    time: int  # unix seconds
    txs: tuple[Tx, ...]
    merkle_root: ID = _EMPTY_ROOT
    cached_id: ID | None = field(default=None, compare=False, repr=False, kw_only=True)

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.parent_id.raw).u64(self.height).u64(self.time)
        packer.fixed(self.merkle_root.raw).items(self.txs, _pack_tx)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        parent, height, time, root = read_id(reader), reader.u64(), reader.u64(), read_id(reader)
        txs = tuple(reader.items(_read_tx, min_item_size=8))
        return cls(parent, height, time, txs, root)

    def encode(self) -> bytes:
        return AVM_TYPES.encode(self, max_size=TX_MAX_SIZE)

    @classmethod
    def decode(cls, data: bytes) -> StandardBlock:
        return AVM_TYPES.decode(data, StandardBlock, max_size=TX_MAX_SIZE)

    @property
    def id(self) -> ID:
        if self.cached_id is None:  # frozen, but the id is a pure function of the fields
            object.__setattr__(self, "cached_id", ID(hashlib.sha256(self.encode()).digest()))
        assert self.cached_id is not None
        return self.cached_id


def _read_tx(reader: Unpacker) -> Tx:
    return Tx.unpack(reader)
