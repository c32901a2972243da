"""Warp messages: UnsignedMessage, the signed Message and its BitSetSignature.

Public API: `UnsignedMessage(network_id, source_chain_id, payload)` with `encode`/`decode` and `id`
(sha256 of the unsigned bytes); `Message(unsigned, signature)` with `encode`/`decode`;
`BitSetSignature(signers, signature)` with `signer_indices()` / `from_indices(indices, signature)`.
A bitset is the big-endian bytes of a big integer with no leading zero byte; bit i (least
significant bit of the last byte is bit 0) marks canonical validator i as a signer.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, Self

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.registry import Encodable, TopLevel, TypeRegistry, read_id

WARP_SIGNATURES = TypeRegistry("warp signature")
BLS_SIGNATURE_LEN = 96
# The node's warp codec has no size limit (math.MaxInt); the carrying tx or p2p message bounds it.
_NO_LIMIT = sys.maxsize


@dataclass(frozen=True, slots=True)
class UnsignedMessage(TopLevel):
    """`network_id`, the chain that sent it, and its payload bytes (a payload-codec message)."""

    max_size: ClassVar[int] = _NO_LIMIT
    network_id: int
    source_chain_id: ID
    payload: bytes

    def pack(self, packer: Packer) -> None:
        packer.u32(self.network_id).fixed(self.source_chain_id.raw).var_bytes(self.payload)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u32(), read_id(reader), reader.var_bytes())

    @property
    def id(self) -> ID:
        """The message id: sha256 of the unsigned bytes (what validators sign)."""
        return ID(hashlib.sha256(self.encode()).digest())


def _minimal(number: int) -> bytes:
    return number.to_bytes((number.bit_length() + 7) // 8, "big")


@WARP_SIGNATURES.register(0)
@dataclass(frozen=True, slots=True)
class BitSetSignature(Encodable):
    """Which canonical validators signed (a bitset) and their aggregate 96-byte BLS signature."""

    signers: bytes
    signature: bytes

    def __post_init__(self) -> None:
        if len(self.signature) != BLS_SIGNATURE_LEN:
            raise InvalidParams(f"signature must be {BLS_SIGNATURE_LEN} bytes")
        if _minimal(int.from_bytes(self.signers, "big")) != self.signers:
            raise InvalidParams("bitset is invalid")

    @classmethod
    def from_indices(cls, indices: Iterable[int], signature: bytes) -> Self:
        number = 0
        for index in indices:
            number |= 1 << index
        return cls(_minimal(number), signature)

    def signer_indices(self) -> list[int]:
        """The canonical indices of the signers, ascending."""
        number = int.from_bytes(self.signers, "big")
        return [i for i in range(number.bit_length()) if number >> i & 1]

    def pack(self, packer: Packer) -> None:
        packer.var_bytes(self.signers).fixed(self.signature)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.var_bytes(), reader.fixed(BLS_SIGNATURE_LEN))


@dataclass(frozen=True, slots=True)
class Message(TopLevel):
    """A signed warp message: the unsigned fields inline, then the signature interface."""

    max_size: ClassVar[int] = _NO_LIMIT
    unsigned: UnsignedMessage
    signature: BitSetSignature

    @property
    def id(self) -> ID:
        return self.unsigned.id

    def pack(self, packer: Packer) -> None:
        self.unsigned.pack(packer)
        WARP_SIGNATURES.pack(packer, self.signature)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        unsigned = UnsignedMessage.unpack(reader)
        return cls(unsigned, WARP_SIGNATURES.unpack(reader, BitSetSignature))
