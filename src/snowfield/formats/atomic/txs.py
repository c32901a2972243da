"""C-Chain atomic txs of coreth's atomic codec: ImportTx, ExportTx and the signed `AtomicTx`.

Public API: `EVMOutput` (an import's credit to an EVM address), `EVMInput` (an export's debit,
with the account nonce), `ImportTx`, `ExportTx`, `AtomicTx` (`encode`/`decode`, `.id` =
sha256 of the signed bytes, `unsigned_bytes()` = what the keys sign, hashed with sha256).
Construction and decoding enforce coreth's structural rules: imported inputs sorted and unique,
EVM inputs sorted and unique by (address, asset), exported outputs sorted, only secp256k1fx
inputs and outputs. An import's EVM outputs are not checked here: coreth's parser accepts them
in any order and the verifier requires them sorted and unique only from ApricotPhase2
(`require_sorted_evm_outputs`), so the history before it (mainnet C-Chain block 132481 credits
one address three times) decodes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Self

from snowfield.errors import InvalidParams
from snowfield.formats.atomic.types import ATOMIC_TYPES, UnsignedAtomicTx
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import (
    TransferableInput,
    TransferableOutput,
    check_inputs,
    check_outputs,
    pack_inputs,
    pack_outputs,
    read_inputs,
    read_outputs,
)
from snowfield.formats.platform.secp256k1fx import Credential, TransferInput, TransferOutput
from snowfield.formats.platform.types import AnyCredential
from snowfield.formats.registry import (
    Encodable,
    TopLevel,
    decode_top,
    encode_top,
    pack_struct,
    read_id,
    require_sorted_unique,
)

ADDRESS_LEN = 20
TX_MAX_SIZE = 256 * 1024
_EVM_OUTPUT_SIZE = ADDRESS_LEN + 8 + 32
_EVM_INPUT_SIZE = _EVM_OUTPUT_SIZE + 8
_MIN_CREDENTIAL_SIZE = 4 + 4


@dataclass(frozen=True, slots=True)
class EVMOutput(Encodable):
    """Credits `amount` (9 decimals) of `asset_id` to the EVM account `address`."""

    address: bytes
    amount: int
    asset_id: ID

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.address).u64(self.amount).fixed(self.asset_id.raw)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.fixed(ADDRESS_LEN), reader.u64(), read_id(reader))

    def sort_key(self) -> bytes:
        return self.address + self.asset_id.raw


@dataclass(frozen=True, slots=True)
class EVMInput(Encodable):
    """Debits `amount` of `asset_id` from `address`, whose account nonce must be `nonce`."""

    address: bytes
    amount: int
    asset_id: ID
    nonce: int

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.address).u64(self.amount).fixed(self.asset_id.raw).u64(self.nonce)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.fixed(ADDRESS_LEN), reader.u64(), read_id(reader), reader.u64())

    def sort_key(self) -> bytes:
        return self.address + self.asset_id.raw


def _only_secp_inputs(inputs: Sequence[TransferableInput]) -> None:
    for inp in inputs:
        if not isinstance(inp.input, TransferInput):
            raise InvalidParams(f"unknown atomic type id {inp.input.type_id}")


def _only_secp_outputs(outputs: Sequence[TransferableOutput]) -> None:
    for out in outputs:
        if not isinstance(out.output, TransferOutput):
            raise InvalidParams(f"unknown atomic type id {out.output.type_id}")


@ATOMIC_TYPES.register(0)
@dataclass(frozen=True, slots=True)
class ImportTx(UnsignedAtomicTx):
    """Consumes `imported_inputs` that `source_chain` exported, credits `outs` on the EVM."""

    network_id: int
    blockchain_id: ID
    source_chain: ID
    imported_inputs: tuple[TransferableInput, ...]
    outs: tuple[EVMOutput, ...]

    def __post_init__(self) -> None:
        _only_secp_inputs(self.imported_inputs)
        check_inputs(self.imported_inputs, "inputs")

    def pack(self, packer: Packer) -> None:
        packer.u32(self.network_id).fixed(self.blockchain_id.raw).fixed(self.source_chain.raw)
        pack_inputs(packer, self.imported_inputs)
        packer.items(self.outs, pack_struct)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        network_id, chain, source = reader.u32(), read_id(reader), read_id(reader)
        inputs = read_inputs(reader)
        outs = tuple(reader.items(EVMOutput.unpack, min_item_size=_EVM_OUTPUT_SIZE))
        return cls(network_id, chain, source, inputs, outs)


@ATOMIC_TYPES.register(1)
@dataclass(frozen=True, slots=True)
class ExportTx(UnsignedAtomicTx):
    """Debits `ins` on the EVM and puts `exported_outputs` into `destination_chain`'s memory."""

    network_id: int
    blockchain_id: ID
    destination_chain: ID
    ins: tuple[EVMInput, ...]
    exported_outputs: tuple[TransferableOutput, ...]

    def __post_init__(self) -> None:
        require_sorted_unique([i.sort_key() for i in self.ins], "inputs")
        _only_secp_outputs(self.exported_outputs)
        check_outputs(self.exported_outputs, "outputs")

    def pack(self, packer: Packer) -> None:
        packer.u32(self.network_id).fixed(self.blockchain_id.raw)
        packer.fixed(self.destination_chain.raw).items(self.ins, pack_struct)
        pack_outputs(packer, self.exported_outputs)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        network_id, chain, destination = reader.u32(), read_id(reader), read_id(reader)
        ins = tuple(reader.items(EVMInput.unpack, min_item_size=_EVM_INPUT_SIZE))
        return cls(network_id, chain, destination, ins, read_outputs(reader))


def require_sorted_evm_outputs(tx: ImportTx) -> None:
    """coreth's ApricotPhase2 rule on an import's EVM outputs (a verifier's rule, not the
    codec's): sorted and unique by (address, asset)."""
    require_sorted_unique([o.sort_key() for o in tx.outs], "outputs")


def _pack_credential(packer: Packer, credential: AnyCredential) -> None:
    ATOMIC_TYPES.pack(packer, credential)


def _read_credential(reader: Unpacker) -> Credential:
    return ATOMIC_TYPES.unpack(reader, Credential)


@dataclass(frozen=True, slots=True)
class AtomicTx(TopLevel):
    """A signed atomic tx: the unsigned tx and one credential per input, in input order."""

    max_size = TX_MAX_SIZE

    unsigned: UnsignedAtomicTx
    credentials: tuple[Credential, ...] = ()
    # The bytes `decode` read (one encoding per value): ids of received txs cost one hash.
    raw: bytes = field(default=b"", compare=False, repr=False, kw_only=True)

    def encode(self) -> bytes:
        return self.raw or encode_top(self.pack, max_size=self.max_size)

    @classmethod
    def decode(cls, data: bytes) -> Self:
        """Parse signed tx bytes; InvalidParams on truncated, trailing, unknown or invalid input."""
        return replace(decode_top(data, cls.unpack, max_size=cls.max_size), raw=bytes(data))

    def pack(self, packer: Packer) -> None:
        ATOMIC_TYPES.pack(packer, self.unsigned)
        packer.items(self.credentials, _pack_credential)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        unsigned = ATOMIC_TYPES.unpack(reader, UnsignedAtomicTx)
        creds = reader.items(_read_credential, min_item_size=_MIN_CREDENTIAL_SIZE)
        return cls(unsigned, tuple(creds))

    def unsigned_bytes(self) -> bytes:
        """`u16 version | type id | fields`: gas is charged on their length, keys sign them."""
        return ATOMIC_TYPES.encode(self.unsigned, max_size=self.max_size)

    @property
    def id(self) -> ID:
        return ID(hashlib.sha256(self.encode()).digest())
