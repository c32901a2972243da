"""Stakeable locks: LockOut / LockIn wrap a secp256k1fx transfer that only stakes until locktime."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.platform.secp256k1fx import TransferInput, TransferOutput
from snowfield.formats.platform.types import PLATFORM_TYPES, TransferableIn, TransferableOut


@PLATFORM_TYPES.register(22)
@dataclass(frozen=True, slots=True)
class LockOut(TransferableOut):
    """stakeable.LockOut: `output` is locked for anything but staking until `locktime`."""

    locktime: int
    output: TransferOutput  # a nested lock is not decodable: the field only takes TransferOutput

    @property
    def amount(self) -> int:
        return self.output.amt

    def pack(self, packer: Packer) -> None:
        packer.u64(self.locktime)
        PLATFORM_TYPES.pack(packer, self.output)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u64(), PLATFORM_TYPES.unpack(reader, TransferOutput))


@PLATFORM_TYPES.register(21)
@dataclass(frozen=True, slots=True)
class LockIn(TransferableIn):
    """stakeable.LockIn: spends a LockOut UTXO (`locktime` repeats the output's)."""

    locktime: int
    input: TransferInput

    @property
    def amount(self) -> int:
        return self.input.amt

    def pack(self, packer: Packer) -> None:
        packer.u64(self.locktime)
        PLATFORM_TYPES.pack(packer, self.input)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u64(), PLATFORM_TYPES.unpack(reader, TransferInput))
