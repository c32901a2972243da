"""A permissionless validator's BLS signer: signer.Empty (27) or signer.ProofOfPossession (28)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.platform.types import PLATFORM_TYPES, Signer

BLS_PUBLIC_KEY_LEN = 48
BLS_SIGNATURE_LEN = 96


@PLATFORM_TYPES.register(27)
@dataclass(frozen=True, slots=True)
class EmptySigner(Signer):
    """No BLS key (subnet validators, pre-Banff style stakers)."""

    def pack(self, packer: Packer) -> None:
        return None

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls()


@PLATFORM_TYPES.register(28)
@dataclass(frozen=True, slots=True)
class ProofOfPossession(Signer):
    """A 48-byte compressed BLS public key and the 96-byte signature proving its secret is held.

    Also the inline (type-id-less) `Signer` of ConvertSubnetToL1Tx's validators. The bytes are
    only sized here; checking the proof is crypto.bls's job.
    """

    public_key: bytes
    proof: bytes

    def __post_init__(self) -> None:
        if len(self.public_key) != BLS_PUBLIC_KEY_LEN or len(self.proof) != BLS_SIGNATURE_LEN:
            raise InvalidParams("proof of possession must hold a 48-byte key and 96-byte proof")

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.public_key).fixed(self.proof)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.fixed(BLS_PUBLIC_KEY_LEN), reader.fixed(BLS_SIGNATURE_LEN))
