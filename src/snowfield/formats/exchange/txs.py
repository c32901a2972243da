"""X-Chain txs of the AVM codec: BaseTx, CreateAssetTx, OperationTx, ImportTx, ExportTx; the
signed `Tx` and the X-Chain's `UTXO` (whose output may be any fx's).

Layouts from avalanchego `vms/avm/txs`: every tx starts with the avax BaseTx body (the same
struct as the P-Chain's, whose inputs and outputs here may only be secp256k1fx transfers);
a signed tx is `u16 version | iface unsigned | list<iface credential>` and its id is sha256 of
those bytes. Construction and decoding enforce the structural rules (sorted initial states
and operations, sorted unique UTXO ids per operation); the rules that need state or fees are
the chain's.

Public API: `BaseTx`, `CreateAssetTx`, `InitialState`, `OperationTx`, `Operation`, `ImportTx`,
`ExportTx`, `Tx`, `UTXO`, `unsigned_bytes`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Self

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.exchange import fxs
from snowfield.formats.exchange.types import AVM_TYPES, TX_MAX_SIZE, AvmUnsignedTx, FxOperation
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import (
    UTXOID,
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
from snowfield.formats.platform.secp256k1fx import TransferInput, TransferOutput
from snowfield.formats.platform.types import AnyCredential
from snowfield.formats.registry import (
    Encodable,
    TopLevel,
    encode_top,
    pack_struct,
    read_id,
    require_sorted,
    require_sorted_unique,
)

REGISTERED_MODULES = (fxs,)  # importing it registers the fx types
_MIN_CREDENTIAL_SIZE = 4 + 4
_VERSION_SIZE = 2
MAX_NAME_LEN = 128
MAX_SYMBOL_LEN = 4
MAX_DENOMINATION = 32


def state_key(state: Encodable) -> bytes:
    packer = Packer()
    AVM_TYPES.pack(packer, state)
    return packer.to_bytes()


def _check_transfers(
    outputs: Sequence[TransferableOutput], inputs: Sequence[TransferableInput] = ()
) -> None:
    """avax.TransferableOutput/Input on the X-Chain: secp256k1fx transfers only (no locks)."""
    if any(type(out.output) is not TransferOutput for out in outputs):
        raise InvalidParams("output is not a secp256k1fx transfer output")
    if any(type(inp.input) is not TransferInput for inp in inputs):
        raise InvalidParams("input is not a secp256k1fx transfer input")


def _pack_state(packer: Packer, state: Encodable) -> None:
    AVM_TYPES.pack(packer, state)


def _read_state(reader: Unpacker) -> Encodable:
    return AVM_TYPES.unpack(reader, Encodable)


@AVM_TYPES.register(0)
@dataclass(frozen=True, slots=True)
class BaseTx(AvmUnsignedTx):
    """A transfer of any assets."""

    base: BaseTxFields

    def __post_init__(self) -> None:
        _check_transfers(self.base.outputs, self.base.inputs)

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader))


@dataclass(frozen=True, slots=True)
class InitialState(Encodable):
    """The outputs a new asset starts with under the fx at `fx_index` (0 secp256k1fx,
    1 nftfx, 2 propertyfx)."""

    fx_index: int
    outputs: tuple[Encodable, ...]

    def __post_init__(self) -> None:
        require_sorted([state_key(o) for o in self.outputs], "initial state outputs")

    def pack(self, packer: Packer) -> None:
        packer.u32(self.fx_index).items(self.outputs, _pack_state)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u32(), tuple(reader.items(_read_state, min_item_size=4)))


@AVM_TYPES.register(1)
@dataclass(frozen=True, slots=True)
class CreateAssetTx(AvmUnsignedTx):
    """Creates an asset (its id is this tx's id) with its initial outputs."""

    base: BaseTxFields
    name: str
    symbol: str
    denomination: int
    states: tuple[InitialState, ...]

    def __post_init__(self) -> None:
        _check_transfers(self.base.outputs, self.base.inputs)
        require_sorted_unique(
            [s.fx_index.to_bytes(4, "big") for s in self.states], "initial states"
        )

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.string(self.name).string(self.symbol).u8(self.denomination)
        packer.items(self.states, pack_struct)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, name, symbol = BaseTxFields.unpack(reader), reader.string(), reader.string()
        denomination = reader.u8()
        states = tuple(reader.items(InitialState.unpack, min_item_size=8))
        return cls(base, name, symbol, denomination, states)


def _pack_utxo_id(packer: Packer, utxo_id: UTXOID) -> None:
    packer.fixed(utxo_id.tx_id.raw).u32(utxo_id.output_index)


def _read_utxo_id(reader: Unpacker) -> UTXOID:
    return UTXOID(read_id(reader), reader.u32())


@dataclass(frozen=True, slots=True)
class Operation(Encodable):
    """An fx operation on UTXOs of `asset_id`."""

    asset_id: ID
    utxo_ids: tuple[UTXOID, ...]
    op: FxOperation

    def __post_init__(self) -> None:
        keys = [u.tx_id.raw + u.output_index.to_bytes(4, "big") for u in self.utxo_ids]
        require_sorted_unique(keys, "operation UTXO ids")

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.asset_id.raw).items(self.utxo_ids, _pack_utxo_id)
        AVM_TYPES.pack(packer, self.op)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        asset_id = read_id(reader)
        utxo_ids = tuple(reader.items(_read_utxo_id, min_item_size=36))
        return cls(asset_id, utxo_ids, AVM_TYPES.unpack(reader, FxOperation))

    def sort_key(self) -> bytes:
        packer = Packer()
        self.pack(packer)
        return packer.to_bytes()


@AVM_TYPES.register(2)
@dataclass(frozen=True, slots=True)
class OperationTx(AvmUnsignedTx):
    """Transfers plus fx operations (mints, NFT transfers, burns)."""

    base: BaseTxFields
    operations: tuple[Operation, ...]

    def __post_init__(self) -> None:
        _check_transfers(self.base.outputs, self.base.inputs)
        require_sorted_unique([o.sort_key() for o in self.operations], "operations")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.items(self.operations, pack_struct)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base = BaseTxFields.unpack(reader)
        return cls(base, tuple(reader.items(Operation.unpack, min_item_size=40)))


@AVM_TYPES.register(3)
@dataclass(frozen=True, slots=True)
class ImportTx(AvmUnsignedTx):
    """Consumes `imported_inputs` that `source_chain` exported into shared memory."""

    base: BaseTxFields
    source_chain: ID
    imported_inputs: tuple[TransferableInput, ...]

    def __post_init__(self) -> None:
        _check_transfers(self.base.outputs, (*self.base.inputs, *self.imported_inputs))
        check_inputs(self.imported_inputs, "imported inputs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.source_chain.raw)
        pack_inputs(packer, self.imported_inputs)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader), read_id(reader), read_inputs(reader))


@AVM_TYPES.register(4)
@dataclass(frozen=True, slots=True)
class ExportTx(AvmUnsignedTx):
    """Puts `exported_outputs` into shared memory for `destination_chain`."""

    base: BaseTxFields
    destination_chain: ID
    exported_outputs: tuple[TransferableOutput, ...]

    def __post_init__(self) -> None:
        _check_transfers((*self.base.outputs, *self.exported_outputs), self.base.inputs)
        check_outputs(self.exported_outputs, "exported outputs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.destination_chain.raw)
        pack_outputs(packer, self.exported_outputs)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader), read_id(reader), read_outputs(reader))


def _pack_credential(packer: Packer, credential: AnyCredential) -> None:
    AVM_TYPES.pack(packer, credential)


def _read_credential(reader: Unpacker) -> AnyCredential:
    return AVM_TYPES.unpack(reader, AnyCredential)


def unsigned_bytes(unsigned: AvmUnsignedTx) -> bytes:
    """`u16 version | type id | fields`: the bytes whose sha256 every credential signs."""
    return AVM_TYPES.encode(unsigned, max_size=TX_MAX_SIZE)


@dataclass(frozen=True, slots=True)
class Tx(TopLevel):
    """A signed X-Chain tx: one credential per input, then one per operation."""

    unsigned: AvmUnsignedTx
    credentials: tuple[AnyCredential, ...] = ()
    raw: bytes = field(default=b"", compare=False, repr=False, kw_only=True)
    unsigned_size: int = field(default=0, compare=False, repr=False, kw_only=True)
    # The id, computed once: the chain asks for it at every step of a tx's life.
    cached_id: ID | None = field(default=None, compare=False, repr=False, kw_only=True)

    def encode(self) -> bytes:
        return self.raw or encode_top(self.pack, max_size=self.max_size)

    @classmethod
    def decode(cls, data: bytes) -> Self:
        """Parse signed tx bytes; InvalidParams on truncated, trailing, unknown or invalid input."""
        reader = Unpacker(data, max_size=cls.max_size)
        reader.version()
        tx = cls.unpack(reader)
        reader.finish()
        object.__setattr__(tx, "raw", bytes(data))  # its own bytes, read once: frozen otherwise
        return tx

    def pack(self, packer: Packer) -> None:
        if self.raw:
            packer.fixed(self.raw[_VERSION_SIZE:])
            return
        AVM_TYPES.pack(packer, self.unsigned)
        packer.items(self.credentials, _pack_credential)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        start = reader.offset
        unsigned = AVM_TYPES.unpack(reader, AvmUnsignedTx)
        size = reader.offset - start
        credentials = tuple(reader.items(_read_credential, min_item_size=_MIN_CREDENTIAL_SIZE))
        return cls(unsigned, credentials, unsigned_size=size)

    def unsigned_bytes(self) -> bytes:
        if self.raw and self.unsigned_size:
            return self.raw[: _VERSION_SIZE + self.unsigned_size]
        return unsigned_bytes(self.unsigned)

    @property
    def id(self) -> ID:
        if self.cached_id is None:
            # frozen, but the id is a pure function of the fields: caching it changes nothing
            object.__setattr__(self, "cached_id", ID(hashlib.sha256(self.encode()).digest()))
        assert self.cached_id is not None
        return self.cached_id


@dataclass(frozen=True, slots=True)
class UTXO(TopLevel):
    """An X-Chain UTXO: `u16 version | txID | index | assetID | iface output` (any fx's)."""

    utxo_id: UTXOID
    asset_id: ID
    output: Encodable

    @property
    def id(self) -> ID:
        return self.utxo_id.input_id

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.utxo_id.tx_id.raw).u32(self.utxo_id.output_index)
        packer.fixed(self.asset_id.raw)
        AVM_TYPES.pack(packer, self.output)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        utxo_id = UTXOID(read_id(reader), reader.u32())
        return cls(utxo_id, read_id(reader), AVM_TYPES.unpack(reader, Encodable))
