"""avax components of the P-Chain: UTXO ids, transferable inputs/outputs, UTXOs, the BaseTx body.

Public API: `UTXOID` (`.input_id` = sha256(u64 index ‖ txID)), `TransferableOutput`,
`TransferableInput`, `UTXO` (`encode`/`decode` with the codec version, `.id`), `BaseTxFields` (the
avax.BaseTx body every fee-paying tx starts with; construction checks the avalanchego rules: outputs
sorted by (asset, output bytes), inputs sorted and unique by (txID, index), memo ≤ 256 bytes), and
`pack_outputs` / `read_outputs` / `pack_inputs` / `read_inputs` for the lists other txs carry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Self

from snowfield.errors import InvalidParams
from snowfield.formats.codec import CODEC_VERSION, Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.platform.types import PLATFORM_TYPES, TransferableIn, TransferableOut
from snowfield.formats.registry import (
    Encodable,
    TopLevel,
    pack_struct,
    read_id,
    require_sorted,
    require_sorted_unique,
)

MAX_MEMO_SIZE = 256
_VERSION = CODEC_VERSION.to_bytes(2, "big")
_MIN_OUTPUT_SIZE = 32 + 4  # asset id + type id
_MIN_INPUT_SIZE = 32 + 4 + 32 + 4


@dataclass(frozen=True, slots=True, order=True)
class UTXOID:
    """Which output of which tx: `tx_id:output_index`."""

    tx_id: ID
    output_index: int
    # The id, computed once: a spend asks for it at admission, lookup, removal and indexing.
    _input_id: ID | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def input_id(self) -> ID:
        """The UTXO's id as the node indexes it: sha256(u64 BE index ‖ txID)."""
        cached = self._input_id
        if cached is None:
            digest = hashlib.sha256(self.output_index.to_bytes(8, "big") + self.tx_id.raw)
            cached = ID(digest.digest())
            object.__setattr__(self, "_input_id", cached)  # frozen, but a pure function of it
        return cached

    def __str__(self) -> str:
        return f"{self.tx_id}:{self.output_index}"


@dataclass(frozen=True, slots=True)
class TransferableOutput(Encodable):
    """`asset_id` ‖ an output interface (fxID is not serialized)."""

    asset_id: ID
    output: TransferableOut
    # The bytes it was decoded from (the codec is canonical: they are its packing). Set by
    # `unpack` only, so a copy made with other fields never carries them: the sort check of
    # every decoded tx and the indexer's UTXO bytes then need no second packing.
    raw: bytes = field(default=b"", init=False, compare=False, repr=False)

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.asset_id.raw)
        PLATFORM_TYPES.pack(packer, self.output)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        start = reader.offset
        out = cls(read_id(reader), PLATFORM_TYPES.unpack(reader, TransferableOut))
        object.__setattr__(out, "raw", reader.read_since(start))
        return out

    def sort_key(self) -> bytes:
        """avalanchego orders outputs by asset id, then by the output's codec bytes."""
        if self.raw:
            return self.raw
        packer = Packer()
        self.pack(packer)
        return packer.to_bytes()


@dataclass(frozen=True, slots=True)
class TransferableInput(Encodable):
    """Spends `utxo_id` of `asset_id` with an input interface."""

    utxo_id: UTXOID
    asset_id: ID
    input: TransferableIn

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.utxo_id.tx_id.raw).u32(self.utxo_id.output_index)
        packer.fixed(self.asset_id.raw)
        PLATFORM_TYPES.pack(packer, self.input)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        utxo_id = UTXOID(read_id(reader), reader.u32())
        return cls(utxo_id, read_id(reader), PLATFORM_TYPES.unpack(reader, TransferableIn))

    def sort_key(self) -> bytes:
        return self.utxo_id.tx_id.raw + self.utxo_id.output_index.to_bytes(4, "big")


def check_outputs(outputs: Sequence[TransferableOutput], what: str = "outputs") -> None:
    require_sorted([out.sort_key() for out in outputs], what)


def check_inputs(inputs: Sequence[TransferableInput], what: str = "inputs") -> None:
    require_sorted_unique([inp.sort_key() for inp in inputs], what)


def pack_outputs(packer: Packer, outputs: Sequence[TransferableOutput]) -> None:
    packer.items(outputs, pack_struct)


def read_outputs(reader: Unpacker) -> tuple[TransferableOutput, ...]:
    return tuple(reader.items(TransferableOutput.unpack, min_item_size=_MIN_OUTPUT_SIZE))


def pack_inputs(packer: Packer, inputs: Sequence[TransferableInput]) -> None:
    packer.items(inputs, pack_struct)


def read_inputs(reader: Unpacker) -> tuple[TransferableInput, ...]:
    return tuple(reader.items(TransferableInput.unpack, min_item_size=_MIN_INPUT_SIZE))


@dataclass(frozen=True, slots=True)
class UTXO(TopLevel):
    """An unspent output: `u16 version | txID | index | assetID | output interface`."""

    utxo_id: UTXOID
    asset_id: ID
    output: TransferableOut

    @property
    def id(self) -> ID:
        return self.utxo_id.input_id

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.utxo_id.tx_id.raw).u32(self.utxo_id.output_index)
        packer.fixed(self.asset_id.raw)
        PLATFORM_TYPES.pack(packer, self.output)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        utxo_id = UTXOID(read_id(reader), reader.u32())
        return cls(utxo_id, read_id(reader), PLATFORM_TYPES.unpack(reader, TransferableOut))


def utxo_bytes(utxo_id: UTXOID, out: TransferableOutput) -> bytes:
    """The encoded UTXO that `out` becomes at `utxo_id` (what `UTXO(...).encode()` gives),
    from the output's decoded bytes when it has them."""
    if not out.raw:
        return UTXO(utxo_id, out.asset_id, out.output).encode()
    index = utxo_id.output_index.to_bytes(4, "big")
    return _VERSION + utxo_id.tx_id.raw + index + out.raw


@dataclass(frozen=True, slots=True)
class BaseTxFields(Encodable):
    """avax.BaseTx: network, chain, outputs, inputs and memo of every fee-paying P-Chain tx."""

    network_id: int
    blockchain_id: ID
    outputs: tuple[TransferableOutput, ...]
    inputs: tuple[TransferableInput, ...]
    memo: bytes = b""

    def __post_init__(self) -> None:
        check_outputs(self.outputs)
        check_inputs(self.inputs)
        if len(self.memo) > MAX_MEMO_SIZE:
            raise InvalidParams(
                f"memo length {len(self.memo)} exceeds the maximum of {MAX_MEMO_SIZE} bytes"
            )

    def pack(self, packer: Packer) -> None:
        packer.u32(self.network_id).fixed(self.blockchain_id.raw)
        pack_outputs(packer, self.outputs)
        pack_inputs(packer, self.inputs)
        packer.var_bytes(self.memo)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        network_id, blockchain_id = reader.u32(), read_id(reader)
        outputs, inputs = read_outputs(reader), read_inputs(reader)
        return cls(network_id, blockchain_id, outputs, inputs, reader.var_bytes())
