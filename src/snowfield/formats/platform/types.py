"""The platformvm codec's type registry (txs and blocks share one numbering) and its kinds.

Public API: `PLATFORM_TYPES` (the registry every P-Chain module registers into) and the abstract
kinds an interface field may hold: `TransferableOut`, `TransferableIn`, `Owner`, `Auth`,
`AnyCredential`, `Signer`,
`UnsignedTx`, `Block`. `TX_MAX_SIZE` is the codec manager's 256 KiB limit for txs and blocks.
"""

from __future__ import annotations

from snowfield.formats.codec import DEFAULT_MAX_SIZE
from snowfield.formats.registry import Encodable, TypeRegistry

PLATFORM_TYPES = TypeRegistry("platformvm")
TX_MAX_SIZE = DEFAULT_MAX_SIZE


class TransferableOut(Encodable):
    """A transferable output (secp256k1fx.TransferOutput or stakeable.LockOut)."""

    __slots__ = ()

    @property
    def amount(self) -> int:
        raise NotImplementedError


class TransferableIn(Encodable):
    """A transferable input (secp256k1fx.TransferInput or stakeable.LockIn)."""

    __slots__ = ()

    @property
    def amount(self) -> int:
        raise NotImplementedError


class Owner(Encodable):
    """An owner of rewards, a subnet or a balance (secp256k1fx.OutputOwners)."""

    __slots__ = ()


class Auth(Encodable):
    """The authorization of a subnet-owner action (secp256k1fx.Input: signature indices)."""

    __slots__ = ()


class AnyCredential(Encodable):
    """A credential: the signatures backing one input or auth."""

    __slots__ = ()


class Signer(Encodable):
    """A permissionless validator's BLS signer (signer.Empty or signer.ProofOfPossession)."""

    __slots__ = ()


class UnsignedTx(Encodable):
    """Any P-Chain unsigned transaction."""

    __slots__ = ()


class Block(Encodable):
    """Any P-Chain block."""

    __slots__ = ()
