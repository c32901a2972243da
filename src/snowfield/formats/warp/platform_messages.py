"""The P-Chain's L1 warp messages (ACP-77), carried in AddressedCall payloads, and their ids.

Public API: `SubnetToL1Conversion(id)`, `RegisterL1Validator(...)` (`.validation_id` =
sha256 of its codec bytes), `L1ValidatorRegistration(validation_id, registered)`,
`L1ValidatorWeight(validation_id, nonce, weight)`, `encode_message`/`decode_message` (version and
type id included), and `SubnetToL1ConversionData` / `ValidatorData` with `conversion_id`
(sha256 of the data's codec bytes, the id a SubnetToL1Conversion message carries), and
`conversion_id_of(tx)` for a ConvertSubnetToL1Tx.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from typing import ClassVar, Self

from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.platform.l1_txs import ConvertSubnetToL1Tx, PChainOwner
from snowfield.formats.platform.signer import BLS_PUBLIC_KEY_LEN
from snowfield.formats.registry import (
    Encodable,
    TopLevel,
    TypeRegistry,
    pack_struct,
    read_id,
)

L1_MESSAGES = TypeRegistry("L1 warp message")
# The message codec has no limit of its own (math.MaxInt); the warp payload's 24 KiB bounds it.
_NO_LIMIT = sys.maxsize
_MIN_VALIDATOR_DATA_SIZE = 4 + BLS_PUBLIC_KEY_LEN + 8


class L1Message(Encodable):
    """Any P-Chain L1 warp message."""

    __slots__ = ()


@L1_MESSAGES.register(0)
@dataclass(frozen=True, slots=True)
class SubnetToL1Conversion(L1Message):
    """The P-Chain attests that a subnet was converted; `id` is the conversion id."""

    id: ID

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.id.raw)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_id(reader))


@L1_MESSAGES.register(1)
@dataclass(frozen=True, slots=True)
class RegisterL1Validator(L1Message):
    """An L1's request to register a validator until `expiry` (unix seconds)."""

    subnet_id: ID
    node_id: bytes
    bls_public_key: bytes
    expiry: int
    remaining_balance_owner: PChainOwner
    disable_owner: PChainOwner
    weight: int

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.subnet_id.raw).var_bytes(self.node_id).fixed(self.bls_public_key)
        packer.u64(self.expiry)
        self.remaining_balance_owner.pack(packer)
        self.disable_owner.pack(packer)
        packer.u64(self.weight)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        subnet_id, node_id = read_id(reader), reader.var_bytes()
        key, expiry = reader.fixed(BLS_PUBLIC_KEY_LEN), reader.u64()
        owners = PChainOwner.unpack(reader), PChainOwner.unpack(reader)
        return cls(subnet_id, node_id, key, expiry, *owners, reader.u64())

    @property
    def validation_id(self) -> ID:
        """The validator's validation id: sha256 of this message's codec bytes."""
        return ID(hashlib.sha256(encode_message(self)).digest())


@L1_MESSAGES.register(2)
@dataclass(frozen=True, slots=True)
class L1ValidatorRegistration(L1Message):
    """The P-Chain attests that a validation is (or will never be) registered."""

    validation_id: ID
    registered: bool

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.validation_id.raw).boolean(self.registered)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_id(reader), reader.boolean())


@L1_MESSAGES.register(3)
@dataclass(frozen=True, slots=True)
class L1ValidatorWeight(L1Message):
    """Sets (from an L1) or confirms (from the P-Chain) a validator's weight at `nonce`."""

    validation_id: ID
    nonce: int
    weight: int

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.validation_id.raw).u64(self.nonce).u64(self.weight)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_id(reader), reader.u64(), reader.u64())


def encode_message(message: L1Message) -> bytes:
    return L1_MESSAGES.encode(message, max_size=_NO_LIMIT)


def decode_message(data: bytes) -> L1Message:
    return L1_MESSAGES.decode(data, L1Message, max_size=_NO_LIMIT)


@dataclass(frozen=True, slots=True)
class ValidatorData(Encodable):
    """An initial L1 validator as the conversion id commits to it."""

    node_id: bytes
    bls_public_key: bytes
    weight: int

    def pack(self, packer: Packer) -> None:
        packer.var_bytes(self.node_id).fixed(self.bls_public_key).u64(self.weight)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.var_bytes(), reader.fixed(BLS_PUBLIC_KEY_LEN), reader.u64())


@dataclass(frozen=True, slots=True)
class SubnetToL1ConversionData(TopLevel):
    """What a ConvertSubnetToL1Tx committed to; its sha256 is the conversion id."""

    max_size: ClassVar[int] = _NO_LIMIT
    subnet_id: ID
    manager_chain_id: ID
    manager_address: bytes
    validators: tuple[ValidatorData, ...]

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.subnet_id.raw).fixed(self.manager_chain_id.raw)
        packer.var_bytes(self.manager_address).items(self.validators, pack_struct)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        subnet_id, chain_id, address = read_id(reader), read_id(reader), reader.var_bytes()
        validators = reader.items(ValidatorData.unpack, min_item_size=_MIN_VALIDATOR_DATA_SIZE)
        return cls(subnet_id, chain_id, address, tuple(validators))

    @property
    def conversion_id(self) -> ID:
        return ID(hashlib.sha256(self.encode()).digest())


def conversion_id_of(tx: ConvertSubnetToL1Tx) -> ID:
    """The conversion id a ConvertSubnetToL1Tx commits to (what SubnetToL1Conversion carries)."""
    data = tuple(ValidatorData(v.node_id, v.signer.public_key, v.weight) for v in tx.validators)
    return SubnetToL1ConversionData(tx.subnet_id, tx.chain_id, tx.address, data).conversion_id
