"""P-Chain L1 (ACP-77, Etna) txs: ConvertSubnetToL1Tx, RegisterL1ValidatorTx,
SetL1ValidatorWeightTx, IncreaseL1ValidatorBalanceTx, DisableL1ValidatorTx, and their parts.

`initial_validation_id(subnet_id, index)` is the validation id of ConvertSubnetToL1Tx's i-th
validator: sha256(subnetID ‖ u32 BE index).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Self

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import BaseTxFields
from snowfield.formats.platform.secp256k1fx import OutputOwners
from snowfield.formats.platform.signer import BLS_SIGNATURE_LEN, ProofOfPossession
from snowfield.formats.platform.types import PLATFORM_TYPES, Auth, UnsignedTx
from snowfield.formats.registry import (
    Encodable,
    pack_struct,
    read_id,
    read_short_id,
    require_sorted_unique,
)

MAX_MANAGER_ADDRESS_LEN = 4096
_MIN_VALIDATOR_SIZE = 4 + 8 + 8 + 48 + 96 + 8 + 8


def _pack_short_id(packer: Packer, value: ShortID) -> None:
    packer.fixed(value.raw)


@dataclass(frozen=True, slots=True)
class PChainOwner(Encodable):
    """`threshold` of `addresses` (no locktime): an L1 validator's balance or disable owner."""

    threshold: int
    addresses: tuple[ShortID, ...]

    def __post_init__(self) -> None:
        OutputOwners(0, self.threshold, self.addresses)  # the same address/threshold rules

    def pack(self, packer: Packer) -> None:
        packer.u32(self.threshold).items(self.addresses, _pack_short_id)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u32(), tuple(reader.items(read_short_id, min_item_size=20)))


@dataclass(frozen=True, slots=True)
class L1Validator(Encodable):
    """An initial validator of ConvertSubnetToL1Tx (its signer is inline, without a type id)."""

    node_id: bytes
    weight: int
    balance: int
    signer: ProofOfPossession
    remaining_balance_owner: PChainOwner
    deactivation_owner: PChainOwner

    def pack(self, packer: Packer) -> None:
        packer.var_bytes(self.node_id).u64(self.weight).u64(self.balance)
        self.signer.pack(packer)
        self.remaining_balance_owner.pack(packer)
        self.deactivation_owner.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        node_id, weight, balance = reader.var_bytes(), reader.u64(), reader.u64()
        signer = ProofOfPossession.unpack(reader)
        return cls(
            node_id, weight, balance, signer, PChainOwner.unpack(reader), PChainOwner.unpack(reader)
        )


@PLATFORM_TYPES.register(35)
@dataclass(frozen=True, slots=True)
class ConvertSubnetToL1Tx(UnsignedTx):
    """Makes a subnet an L1 managed by `address` on `chain_id`, with its initial validators."""

    base: BaseTxFields
    subnet_id: ID
    chain_id: ID
    address: bytes
    validators: tuple[L1Validator, ...]
    subnet_auth: Auth

    def __post_init__(self) -> None:
        if len(self.address) > MAX_MANAGER_ADDRESS_LEN:
            raise InvalidParams(f"address exceeds the maximum of {MAX_MANAGER_ADDRESS_LEN} bytes")
        require_sorted_unique([v.node_id for v in self.validators], "validators")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.subnet_id.raw).fixed(self.chain_id.raw).var_bytes(self.address)
        packer.items(self.validators, pack_struct)
        PLATFORM_TYPES.pack(packer, self.subnet_auth)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, subnet_id, chain_id = BaseTxFields.unpack(reader), read_id(reader), read_id(reader)
        address = reader.var_bytes()
        validators = tuple(reader.items(L1Validator.unpack, min_item_size=_MIN_VALIDATOR_SIZE))
        return cls(
            base, subnet_id, chain_id, address, validators, PLATFORM_TYPES.unpack(reader, Auth)
        )


@PLATFORM_TYPES.register(36)
@dataclass(frozen=True, slots=True)
class RegisterL1ValidatorTx(UnsignedTx):
    """Adds an L1 validator from a signed Warp RegisterL1Validator message (`message` bytes)."""

    base: BaseTxFields
    balance: int
    proof_of_possession: bytes
    message: bytes

    def __post_init__(self) -> None:
        if len(self.proof_of_possession) != BLS_SIGNATURE_LEN:
            raise InvalidParams(f"proof of possession must be {BLS_SIGNATURE_LEN} bytes")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.u64(self.balance).fixed(self.proof_of_possession).var_bytes(self.message)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, balance = BaseTxFields.unpack(reader), reader.u64()
        return cls(base, balance, reader.fixed(BLS_SIGNATURE_LEN), reader.var_bytes())


@PLATFORM_TYPES.register(37)
@dataclass(frozen=True, slots=True)
class SetL1ValidatorWeightTx(UnsignedTx):
    """Changes an L1 validator's weight from a signed Warp L1ValidatorWeight message."""

    base: BaseTxFields
    message: bytes

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.var_bytes(self.message)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader), reader.var_bytes())


@PLATFORM_TYPES.register(38)
@dataclass(frozen=True, slots=True)
class IncreaseL1ValidatorBalanceTx(UnsignedTx):
    """Tops up the continuous-fee balance of the L1 validator `validation_id`."""

    base: BaseTxFields
    validation_id: ID
    balance: int

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.validation_id.raw).u64(self.balance)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader), read_id(reader), reader.u64())


@PLATFORM_TYPES.register(39)
@dataclass(frozen=True, slots=True)
class DisableL1ValidatorTx(UnsignedTx):
    """Deactivates an L1 validator, authorized by its deactivation owner (`disable_auth`)."""

    base: BaseTxFields
    validation_id: ID
    disable_auth: Auth

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.validation_id.raw)
        PLATFORM_TYPES.pack(packer, self.disable_auth)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(
            BaseTxFields.unpack(reader), read_id(reader), PLATFORM_TYPES.unpack(reader, Auth)
        )


def initial_validation_id(subnet_id: ID, index: int) -> ID:
    """Validation id of ConvertSubnetToL1Tx's validator `index`: sha256(subnetID ‖ u32 index)."""
    return ID(hashlib.sha256(subnet_id.raw + index.to_bytes(4, "big")).digest())
