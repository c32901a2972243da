"""P-Chain value-moving txs (BaseTx, ImportTx, ExportTx) and the block builder's own txs
(AdvanceTimeTx, RewardValidatorTx), which carry no BaseTx and no credentials."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
    check_inputs,
    check_outputs,
    pack_inputs,
    pack_outputs,
    read_inputs,
    read_outputs,
)
from snowfield.formats.platform.types import PLATFORM_TYPES, UnsignedTx
from snowfield.formats.registry import read_id


@PLATFORM_TYPES.register(34)
@dataclass(frozen=True, slots=True)
class BaseTx(UnsignedTx):
    """A plain transfer (Durango+)."""

    base: BaseTxFields

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader))


@PLATFORM_TYPES.register(17)
@dataclass(frozen=True, slots=True)
class ImportTx(UnsignedTx):
    """Consumes `imported_inputs` that `source_chain` exported into shared memory."""

    base: BaseTxFields
    source_chain: ID
    imported_inputs: tuple[TransferableInput, ...]

    def __post_init__(self) -> None:
        check_inputs(self.imported_inputs, "imported inputs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.source_chain.raw)
        pack_inputs(packer, self.imported_inputs)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader), read_id(reader), read_inputs(reader))


@PLATFORM_TYPES.register(18)
@dataclass(frozen=True, slots=True)
class ExportTx(UnsignedTx):
    """Puts `exported_outputs` into shared memory for `destination_chain`."""

    base: BaseTxFields
    destination_chain: ID
    exported_outputs: tuple[TransferableOutput, ...]

    def __post_init__(self) -> None:
        check_outputs(self.exported_outputs, "exported outputs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.destination_chain.raw)
        pack_outputs(packer, self.exported_outputs)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader), read_id(reader), read_outputs(reader))


@PLATFORM_TYPES.register(19)
@dataclass(frozen=True, slots=True)
class AdvanceTimeTx(UnsignedTx):
    """Apricot proposal: move the chain time to `time` (unix seconds)."""

    time: int

    def pack(self, packer: Packer) -> None:
        packer.u64(self.time)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u64())


@PLATFORM_TYPES.register(20)
@dataclass(frozen=True, slots=True)
class RewardValidatorTx(UnsignedTx):
    """Proposal to end the staker added by `tx_id` (commit pays the reward, abort does not)."""

    tx_id: ID

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.tx_id.raw)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_id(reader))
