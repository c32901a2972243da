"""P-Chain staking txs: Add(Validator|Delegator|SubnetValidator)Tx, RemoveSubnetValidatorTx, and
Add(Permissionless)(Validator|Delegator)Tx; each a frozen dataclass registered under its type id.

Stake outputs must be sorted like BaseTx outputs (checked on construction and decoding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID, NodeID
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableOutput,
    check_outputs,
    pack_outputs,
    read_outputs,
)
from snowfield.formats.platform.types import PLATFORM_TYPES, Auth, Owner, Signer, UnsignedTx
from snowfield.formats.registry import Encodable, read_id, read_node_id


@dataclass(frozen=True, slots=True)
class Validator(Encodable):
    """txs.Validator: who stakes, from `start` to `end` (unix seconds), with what weight."""

    node_id: NodeID
    start: int
    end: int
    weight: int

    def pack(self, packer: Packer) -> None:
        packer.fixed(self.node_id.raw).u64(self.start).u64(self.end).u64(self.weight)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(read_node_id(reader), reader.u64(), reader.u64(), reader.u64())


@PLATFORM_TYPES.register(12)
@dataclass(frozen=True, slots=True)
class AddValidatorTx(UnsignedTx):
    """Apricot primary-network validator; `shares` is the delegation fee in millionths."""

    base: BaseTxFields
    validator: Validator
    stake: tuple[TransferableOutput, ...]
    rewards_owner: Owner
    shares: int

    def __post_init__(self) -> None:
        check_outputs(self.stake, "stake outputs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        self.validator.pack(packer)
        pack_outputs(packer, self.stake)
        PLATFORM_TYPES.pack(packer, self.rewards_owner)
        packer.u32(self.shares)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, validator, stake = (
            BaseTxFields.unpack(reader),
            Validator.unpack(reader),
            read_outputs(reader),
        )
        return cls(base, validator, stake, PLATFORM_TYPES.unpack(reader, Owner), reader.u32())


@PLATFORM_TYPES.register(13)
@dataclass(frozen=True, slots=True)
class AddSubnetValidatorTx(UnsignedTx):
    """A permissioned subnet's validator, authorized by the subnet owner's keys."""

    base: BaseTxFields
    validator: Validator
    subnet_id: ID
    subnet_auth: Auth

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        self.validator.pack(packer)
        packer.fixed(self.subnet_id.raw)
        PLATFORM_TYPES.pack(packer, self.subnet_auth)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, validator, subnet_id = (
            BaseTxFields.unpack(reader),
            Validator.unpack(reader),
            read_id(reader),
        )
        return cls(base, validator, subnet_id, PLATFORM_TYPES.unpack(reader, Auth))


@PLATFORM_TYPES.register(14)
@dataclass(frozen=True, slots=True)
class AddDelegatorTx(UnsignedTx):
    """Apricot primary-network delegator."""

    base: BaseTxFields
    validator: Validator
    stake: tuple[TransferableOutput, ...]
    rewards_owner: Owner

    def __post_init__(self) -> None:
        check_outputs(self.stake, "stake outputs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        self.validator.pack(packer)
        pack_outputs(packer, self.stake)
        PLATFORM_TYPES.pack(packer, self.rewards_owner)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, validator, stake = (
            BaseTxFields.unpack(reader),
            Validator.unpack(reader),
            read_outputs(reader),
        )
        return cls(base, validator, stake, PLATFORM_TYPES.unpack(reader, Owner))


@PLATFORM_TYPES.register(23)
@dataclass(frozen=True, slots=True)
class RemoveSubnetValidatorTx(UnsignedTx):
    """Removes a permissioned subnet validator."""

    base: BaseTxFields
    node_id: NodeID
    subnet_id: ID
    subnet_auth: Auth

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.node_id.raw).fixed(self.subnet_id.raw)
        PLATFORM_TYPES.pack(packer, self.subnet_auth)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, node_id, subnet_id = (
            BaseTxFields.unpack(reader),
            read_node_id(reader),
            read_id(reader),
        )
        return cls(base, node_id, subnet_id, PLATFORM_TYPES.unpack(reader, Auth))


@PLATFORM_TYPES.register(25)
@dataclass(frozen=True, slots=True)
class AddPermissionlessValidatorTx(UnsignedTx):
    """Banff+ validator of the primary network (with a BLS signer) or an elastic subnet."""

    base: BaseTxFields
    validator: Validator
    subnet_id: ID
    signer: Signer
    stake: tuple[TransferableOutput, ...]
    validator_rewards_owner: Owner
    delegator_rewards_owner: Owner
    delegation_shares: int

    def __post_init__(self) -> None:
        check_outputs(self.stake, "stake outputs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        self.validator.pack(packer)
        packer.fixed(self.subnet_id.raw)
        PLATFORM_TYPES.pack(packer, self.signer)
        pack_outputs(packer, self.stake)
        PLATFORM_TYPES.pack(packer, self.validator_rewards_owner)
        PLATFORM_TYPES.pack(packer, self.delegator_rewards_owner)
        packer.u32(self.delegation_shares)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, validator, subnet_id = (
            BaseTxFields.unpack(reader),
            Validator.unpack(reader),
            read_id(reader),
        )
        signer, stake = PLATFORM_TYPES.unpack(reader, Signer), read_outputs(reader)
        owners = PLATFORM_TYPES.unpack(reader, Owner), PLATFORM_TYPES.unpack(reader, Owner)
        return cls(base, validator, subnet_id, signer, stake, *owners, reader.u32())


@PLATFORM_TYPES.register(26)
@dataclass(frozen=True, slots=True)
class AddPermissionlessDelegatorTx(UnsignedTx):
    """Banff+ delegator to a primary-network or elastic-subnet validator."""

    base: BaseTxFields
    validator: Validator
    subnet_id: ID
    stake: tuple[TransferableOutput, ...]
    delegation_rewards_owner: Owner

    def __post_init__(self) -> None:
        check_outputs(self.stake, "stake outputs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        self.validator.pack(packer)
        packer.fixed(self.subnet_id.raw)
        pack_outputs(packer, self.stake)
        PLATFORM_TYPES.pack(packer, self.delegation_rewards_owner)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, validator, subnet_id = (
            BaseTxFields.unpack(reader),
            Validator.unpack(reader),
            read_id(reader),
        )
        stake = read_outputs(reader)
        return cls(base, validator, subnet_id, stake, PLATFORM_TYPES.unpack(reader, Owner))
