"""The AVM codec's type registry and the kinds its interface fields hold.

avalanchego registers the five tx types (0-4), then each fx's five types: secp256k1fx 5-9,
nftfx 10-14, propertyfx 15-19, and the StandardBlock 20. secp256k1fx keeps the same numbers in
the platformvm codec, so those very classes serve both (an X→P export decodes on P).

Public API: `AVM_TYPES`, `AvmUnsignedTx`, `FxOperation`, `TX_MAX_SIZE`, `owners_of(output)`.
"""

from __future__ import annotations

from snowfield.errors import InvalidParams
from snowfield.formats.codec import DEFAULT_MAX_SIZE
from snowfield.formats.platform.components import BaseTxFields
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.registry import Encodable, TypeRegistry

AVM_TYPES = TypeRegistry("avm")
TX_MAX_SIZE = DEFAULT_MAX_SIZE
for _cls in (TransferInput, TransferOutput, Credential):
    AVM_TYPES.register(_cls.type_id)(_cls)


class AvmUnsignedTx(Encodable):
    """BaseTx, CreateAssetTx, OperationTx, ImportTx or ExportTx."""

    __slots__ = ()
    base: BaseTxFields  # every AVM tx starts with the avax BaseTx body


class FxOperation(Encodable):
    """An fx's operation on UTXOs (mint, NFT transfer, burn)."""

    __slots__ = ()

    @property
    def spend_input(self) -> Input:
        """The signature indices the operation spends its UTXOs with."""
        raise NotImplementedError

    def outputs(self) -> tuple[Encodable, ...]:
        """The outputs the operation creates, in output-index order."""
        raise NotImplementedError


def owners_of(output: Encodable) -> OutputOwners:
    """Who may spend an X-Chain output: every fx output carries secp256k1fx owners."""
    owners = getattr(output, "owners", None)
    if not isinstance(owners, OutputOwners):
        raise InvalidParams(f"{type(output).__name__} is not an output")
    return owners
