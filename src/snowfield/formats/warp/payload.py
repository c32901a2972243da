"""Warp payloads (their own codec, at most 24 KiB): Hash (type 0) and AddressedCall (type 1).

Public API: `Hash(hash)`, `AddressedCall(source_address, payload)`, `encode_payload(p)`,
`decode_payload(data)` (version and type id included, every byte consumed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.registry import Encodable, TypeRegistry, read_id

WARP_PAYLOADS = TypeRegistry("warp payload")
MAX_PAYLOAD_SIZE = 24 * 1024


class Payload(Encodable):
    """Any warp payload."""

    __slots__ = ()


@WARP_PAYLOADS.register(0)
@dataclass(frozen=True, slots=True)
class Hash(Payload):
    """A 32-byte hash (e.g. an accepted block id) the source chain attests to."""

    hash: ID

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.hash.raw)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_id(reader))


@WARP_PAYLOADS.register(1)
@dataclass(frozen=True, slots=True)
class AddressedCall(Payload):
    """A message from `source_address` (empty when the P-Chain itself sends it)."""

    source_address: bytes
    payload: bytes

    def pack(self, packer: Packer) -> None:
        packer.var_bytes(self.source_address).var_bytes(self.payload)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.var_bytes(), reader.var_bytes())


def encode_payload(payload: Payload) -> bytes:
    return WARP_PAYLOADS.encode(payload, max_size=MAX_PAYLOAD_SIZE)


def decode_payload(data: bytes) -> Payload:
    return WARP_PAYLOADS.decode(data, Payload, max_size=MAX_PAYLOAD_SIZE)
