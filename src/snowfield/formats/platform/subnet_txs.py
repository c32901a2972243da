"""P-Chain subnet txs: CreateSubnetTx, CreateChainTx, TransferSubnetOwnershipTx, TransformSubnet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import BaseTxFields
from snowfield.formats.platform.types import PLATFORM_TYPES, Auth, Owner, UnsignedTx
from snowfield.formats.registry import read_id, require_sorted_unique


def _pack_id(packer: Packer, value: ID) -> None:
    packer.fixed(value.raw)


@PLATFORM_TYPES.register(16)
@dataclass(frozen=True, slots=True)
class CreateSubnetTx(UnsignedTx):
    """Creates a subnet owned by `owner`; the subnet id is this tx's id."""

    base: BaseTxFields
    owner: Owner

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        PLATFORM_TYPES.pack(packer, self.owner)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(BaseTxFields.unpack(reader), PLATFORM_TYPES.unpack(reader, Owner))


@PLATFORM_TYPES.register(15)
@dataclass(frozen=True, slots=True)
class CreateChainTx(UnsignedTx):
    """Creates a blockchain of `vm_id` on a subnet; the blockchain id is this tx's id."""

    base: BaseTxFields
    subnet_id: ID
    chain_name: str
    vm_id: ID
    fx_ids: tuple[ID, ...]
    genesis_data: bytes
    subnet_auth: Auth

    def __post_init__(self) -> None:
        require_sorted_unique([fx.raw for fx in self.fx_ids], "fx IDs")

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.subnet_id.raw).string(self.chain_name).fixed(self.vm_id.raw)
        packer.items(self.fx_ids, _pack_id).var_bytes(self.genesis_data)
        PLATFORM_TYPES.pack(packer, self.subnet_auth)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, subnet_id, name, vm_id = (
            BaseTxFields.unpack(reader),
            read_id(reader),
            reader.string(),
            read_id(reader),
        )
        fx_ids, genesis = tuple(reader.items(read_id, min_item_size=32)), reader.var_bytes()
        return cls(
            base, subnet_id, name, vm_id, fx_ids, genesis, PLATFORM_TYPES.unpack(reader, Auth)
        )


@PLATFORM_TYPES.register(33)
@dataclass(frozen=True, slots=True)
class TransferSubnetOwnershipTx(UnsignedTx):
    """Hands a subnet to `owner`, authorized by the current owner's keys."""

    base: BaseTxFields
    subnet_id: ID
    subnet_auth: Auth
    owner: Owner

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.subnet_id.raw)
        PLATFORM_TYPES.pack(packer, self.subnet_auth)
        PLATFORM_TYPES.pack(packer, self.owner)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, subnet_id, auth = (
            BaseTxFields.unpack(reader),
            read_id(reader),
            PLATFORM_TYPES.unpack(reader, Auth),
        )
        return cls(base, subnet_id, auth, PLATFORM_TYPES.unpack(reader, Owner))


@dataclass(frozen=True, slots=True)
class StakingRules:
    """TransformSubnetTx's parameters of an elastic subnet, in wire order."""

    initial_supply: int
    maximum_supply: int
    min_consumption_rate: int
    max_consumption_rate: int
    min_validator_stake: int
    max_validator_stake: int
    min_stake_duration: int  # u32 seconds
    max_stake_duration: int  # u32 seconds
    min_delegation_fee: int  # u32 millionths
    min_delegator_stake: int
    max_validator_weight_factor: int  # u8
    uptime_requirement: int  # u32 millionths

    def pack(self, packer: Packer) -> None:
        for value in (self.initial_supply, self.maximum_supply, self.min_consumption_rate):
            packer.u64(value)
        for value in (
            self.max_consumption_rate,
            self.min_validator_stake,
            self.max_validator_stake,
        ):
            packer.u64(value)
        packer.u32(self.min_stake_duration).u32(self.max_stake_duration)
        packer.u32(self.min_delegation_fee).u64(self.min_delegator_stake)
        packer.u8(self.max_validator_weight_factor).u32(self.uptime_requirement)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        # Call arguments are evaluated left to right, which is the wire order.
        u64, u32 = reader.u64, reader.u32
        return cls(
            u64(), u64(), u64(), u64(), u64(), u64(), u32(), u32(), u32(), u64(), reader.u8(), u32()
        )


@PLATFORM_TYPES.register(24)
@dataclass(frozen=True, slots=True)
class TransformSubnetTx(UnsignedTx):
    """Turns a permissioned subnet into an elastic one staking `asset_id` (disabled since Etna)."""

    base: BaseTxFields
    subnet_id: ID
    asset_id: ID
    rules: StakingRules
    subnet_auth: Auth

    def pack(self, packer: Packer) -> None:
        self.base.pack(packer)
        packer.fixed(self.subnet_id.raw).fixed(self.asset_id.raw)
        self.rules.pack(packer)
        PLATFORM_TYPES.pack(packer, self.subnet_auth)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        base, subnet_id, asset_id = BaseTxFields.unpack(reader), read_id(reader), read_id(reader)
        rules = StakingRules.unpack(reader)
        return cls(base, subnet_id, asset_id, rules, PLATFORM_TYPES.unpack(reader, Auth))
