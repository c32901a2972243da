"""secp256k1fx structs of the P-Chain codec: OutputOwners, TransferOutput/Input, Input, Credential.

Construction and decoding both enforce avalanchego's structural rules: owner addresses sorted and
unique, threshold within 1..len(addresses) unless there are no addresses, signature indices sorted
and unique, signatures 65 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.types import (
    PLATFORM_TYPES,
    AnyCredential,
    Auth,
    Owner,
    TransferableIn,
    TransferableOut,
)
from snowfield.formats.registry import read_short_id, require_sorted_unique

SIGNATURE_LEN = 65  # r ‖ s ‖ v, recoverable secp256k1


def _pack_u32(packer: Packer, value: int) -> None:
    packer.u32(value)


def _pack_short_id(packer: Packer, value: ShortID) -> None:
    packer.fixed(value.raw)


def _read_signature(reader: Unpacker) -> bytes:
    return reader.fixed(SIGNATURE_LEN)


def _check_sig_indices(indices: tuple[int, ...]) -> None:
    require_sorted_unique([i.to_bytes(4, "big") for i in indices], "signature indices")


@PLATFORM_TYPES.register(11)
@dataclass(frozen=True, slots=True)
class OutputOwners(Owner):
    """Who may spend: `threshold` of `addresses` after `locktime` (unix seconds)."""

    locktime: int
    threshold: int
    addresses: tuple[ShortID, ...]

    def __post_init__(self) -> None:
        require_sorted_unique([a.raw for a in self.addresses], "addresses")
        if self.threshold > len(self.addresses):
            raise InvalidParams("output is unspendable")
        if self.threshold == 0 and self.addresses:
            raise InvalidParams("output representation should be optimized")

    def pack(self, packer: Packer) -> None:
        packer.u64(self.locktime).u32(self.threshold).items(self.addresses, _pack_short_id)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        locktime, threshold = reader.u64(), reader.u32()
        return cls(locktime, threshold, tuple(reader.items(read_short_id, min_item_size=20)))


@PLATFORM_TYPES.register(7)
@dataclass(frozen=True, slots=True)
class TransferOutput(TransferableOut):
    """`amount` of an asset owned by `owners` (OutputOwners inline, no type id)."""

    amt: int
    owners: OutputOwners

    @property
    def amount(self) -> int:
        return self.amt

    def pack(self, packer: Packer) -> None:
        packer.u64(self.amt)
        self.owners.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u64(), OutputOwners.unpack(reader))


@PLATFORM_TYPES.register(10)
@dataclass(frozen=True, slots=True)
class Input(Auth):
    """secp256k1fx.Input: indices into the owners' addresses of the keys that signed."""

    indices: tuple[int, ...]

    def __post_init__(self) -> None:
        _check_sig_indices(self.indices)

    def pack(self, packer: Packer) -> None:
        packer.items(self.indices, _pack_u32)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(tuple(reader.items(Unpacker.u32, min_item_size=4)))


@PLATFORM_TYPES.register(5)
@dataclass(frozen=True, slots=True)
class TransferInput(TransferableIn):
    """Spends `amt` of a UTXO with the signatures at `sig_indices` (secp256k1fx.Input inline)."""

    amt: int
    sig_indices: tuple[int, ...]

    def __post_init__(self) -> None:
        _check_sig_indices(self.sig_indices)

    @property
    def amount(self) -> int:
        return self.amt

    def pack(self, packer: Packer) -> None:
        packer.u64(self.amt).items(self.sig_indices, _pack_u32)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u64(), tuple(reader.items(Unpacker.u32, min_item_size=4)))


@PLATFORM_TYPES.register(9)
@dataclass(frozen=True, slots=True)
class Credential(AnyCredential):
    """secp256k1fx.Credential: 65-byte recoverable signatures, one per signature index."""

    signatures: tuple[bytes, ...]

    def __post_init__(self) -> None:
        if any(len(sig) != SIGNATURE_LEN for sig in self.signatures):
            raise InvalidParams(f"signatures must be {SIGNATURE_LEN} bytes")

    def pack(self, packer: Packer) -> None:
        packer.items(self.signatures, Packer.fixed)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(tuple(reader.items(_read_signature, min_item_size=SIGNATURE_LEN)))
