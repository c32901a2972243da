"""The AVM's fx structs beyond secp256k1fx transfers: mint outputs and operations of
secp256k1fx, nftfx (groups with payloads) and propertyfx (owned properties).

Layouts and rules from avalanchego `vms/{secp256k1fx,nftfx,propertyfx}`: embedded
OutputOwners / Input inline, NFT payloads at most 1 KiB, mint operation outputs non-empty.
Each fx's Credential has secp256k1fx's layout and is a subclass of it, so the one signature
check verifies all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.exchange.types import AVM_TYPES, FxOperation
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferOutput,
)
from snowfield.formats.registry import Encodable, pack_struct

MAX_PAYLOAD_SIZE = 1024  # nftfx.MaxPayloadSize
_MIN_OWNERS_SIZE = 8 + 4 + 4


def _check_payload(payload: bytes) -> None:
    if len(payload) > MAX_PAYLOAD_SIZE:
        raise InvalidParams(f"payload too large: {len(payload)} > {MAX_PAYLOAD_SIZE}")


@dataclass(frozen=True, slots=True)
class OwnedState(Encodable):
    """An output that is only its owners (mint rights, properties)."""

    owners: OutputOwners

    def pack(self, packer: Packer) -> None:
        self.owners.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(OutputOwners.unpack(reader))


@AVM_TYPES.register(6)
@dataclass(frozen=True, slots=True)
class MintOutput(OwnedState):
    """secp256k1fx: the right to mint more of a fungible asset."""


@AVM_TYPES.register(8)
@dataclass(frozen=True, slots=True)
class MintOperation(FxOperation):
    """secp256k1fx: spend a MintOutput, recreate it and mint `transfer_output`."""

    mint_input: Input
    mint_output: MintOutput
    transfer_output: TransferOutput

    def pack(self, packer: Packer) -> None:
        self.mint_input.pack(packer)
        self.mint_output.pack(packer)
        self.transfer_output.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(Input.unpack(reader), MintOutput.unpack(reader), TransferOutput.unpack(reader))

    @property
    def spend_input(self) -> Input:
        return self.mint_input

    def outputs(self) -> tuple[Encodable, ...]:
        return (self.mint_output, self.transfer_output)


@AVM_TYPES.register(10)
@dataclass(frozen=True, slots=True)
class NftMintOutput(Encodable):
    """nftfx: the right to mint NFTs of `group_id`."""

    group_id: int
    owners: OutputOwners

    def pack(self, packer: Packer) -> None:
        packer.u32(self.group_id)
        self.owners.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u32(), OutputOwners.unpack(reader))


@AVM_TYPES.register(11)
@dataclass(frozen=True, slots=True)
class NftTransferOutput(Encodable):
    """nftfx: one NFT of `group_id` carrying `payload`."""

    group_id: int
    payload: bytes
    owners: OutputOwners

    def __post_init__(self) -> None:
        _check_payload(self.payload)

    def pack(self, packer: Packer) -> None:
        packer.u32(self.group_id).var_bytes(self.payload)
        self.owners.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(reader.u32(), reader.var_bytes(), OutputOwners.unpack(reader))


@AVM_TYPES.register(12)
@dataclass(frozen=True, slots=True)
class NftMintOperation(FxOperation):
    """nftfx: spend a mint output of `group_id` to create one NFT per owner in `owners`."""

    mint_input: Input
    group_id: int
    payload: bytes
    owners: tuple[OutputOwners, ...]

    def __post_init__(self) -> None:
        _check_payload(self.payload)
        if not self.owners:
            raise InvalidParams("NFT mint operation has no outputs")

    def pack(self, packer: Packer) -> None:
        self.mint_input.pack(packer)
        packer.u32(self.group_id).var_bytes(self.payload).items(self.owners, pack_struct)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        mint_input, group_id, payload = Input.unpack(reader), reader.u32(), reader.var_bytes()
        owners = tuple(reader.items(OutputOwners.unpack, min_item_size=_MIN_OWNERS_SIZE))
        return cls(mint_input, group_id, payload, owners)

    @property
    def spend_input(self) -> Input:
        return self.mint_input

    def outputs(self) -> tuple[Encodable, ...]:
        return tuple(NftTransferOutput(self.group_id, self.payload, o) for o in self.owners)


@AVM_TYPES.register(13)
@dataclass(frozen=True, slots=True)
class NftTransferOperation(FxOperation):
    """nftfx: move one NFT to `output`'s owners."""

    input: Input
    output: NftTransferOutput

    def pack(self, packer: Packer) -> None:
        self.input.pack(packer)
        self.output.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(Input.unpack(reader), NftTransferOutput.unpack(reader))

    @property
    def spend_input(self) -> Input:
        return self.input

    def outputs(self) -> tuple[Encodable, ...]:
        return (self.output,)


@AVM_TYPES.register(14)
@dataclass(frozen=True, slots=True)
class NftCredential(Credential):
    """nftfx's credential: secp256k1fx's signatures."""


@AVM_TYPES.register(15)
@dataclass(frozen=True, slots=True)
class PropertyMintOutput(OwnedState):
    """propertyfx: the right to mint the property."""


@AVM_TYPES.register(16)
@dataclass(frozen=True, slots=True)
class PropertyOwnedOutput(OwnedState):
    """propertyfx: a held property."""


@AVM_TYPES.register(17)
@dataclass(frozen=True, slots=True)
class PropertyMintOperation(FxOperation):
    """propertyfx: spend a mint output, recreate it and create an owned property."""

    mint_input: Input
    mint_output: PropertyMintOutput
    owned_output: PropertyOwnedOutput

    def pack(self, packer: Packer) -> None:
        self.mint_input.pack(packer)
        self.mint_output.pack(packer)
        self.owned_output.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(
            Input.unpack(reader),
            PropertyMintOutput.unpack(reader),
            PropertyOwnedOutput.unpack(reader),
        )

    @property
    def spend_input(self) -> Input:
        return self.mint_input

    def outputs(self) -> tuple[Encodable, ...]:
        return (self.mint_output, self.owned_output)


@AVM_TYPES.register(18)
@dataclass(frozen=True, slots=True)
class PropertyBurnOperation(FxOperation):
    """propertyfx: destroy an owned property."""

    input: Input

    def pack(self, packer: Packer) -> None:
        self.input.pack(packer)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        return cls(Input.unpack(reader))

    @property
    def spend_input(self) -> Input:
        return self.input

    def outputs(self) -> tuple[Encodable, ...]:
        return ()


@AVM_TYPES.register(19)
@dataclass(frozen=True, slots=True)
class PropertyCredential(Credential):
    """propertyfx's credential: secp256k1fx's signatures."""
