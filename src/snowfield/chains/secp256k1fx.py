"""secp256k1fx credentials, shared by the P-, X- and C-Chain: who signed a tx, and whether
they may spend an output's owners.

A port of avalanchego `secp256k1fx/fx.go` (VerifyCredentials), with its error texts.
`Signers` recovers each credential signature's address once per tx (recovery is the
expensive part).

Public API: `Signers(tx)`, `verify_owner(...)`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol

from snowfield.crypto.secp256k1 import recover_public_key
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.secp256k1fx import Credential, OutputOwners
from snowfield.formats.platform.types import AnyCredential


class Signed(Protocol):
    """A signed tx of any chain: what its credentials sign."""

    def unsigned_bytes(self) -> bytes: ...


class Signers:
    """The addresses behind a tx's credential signatures, recovered lazily and cached."""

    def __init__(self, tx: Signed) -> None:
        self._digest = hashlib.sha256(tx.unsigned_bytes()).digest()
        self._cache: dict[bytes, ShortID] = {}

    def address(self, signature: bytes) -> ShortID:
        address = self._cache.get(signature)
        if address is None:
            address = ShortID.from_public_key(recover_public_key(self._digest, signature))
            self._cache[signature] = address
        return address


def _credential(value: AnyCredential) -> Credential:
    if not isinstance(value, Credential):
        raise InvalidParams("wrong credential type")
    return value


def verify_owner(
    signers: Signers,
    owners: OutputOwners,
    indices: Sequence[int],
    credential: AnyCredential,
    now: int,
) -> None:
    """secp256k1fx VerifyCredentials: `indices` of `owners` signed, after the locktime."""
    signatures = _credential(credential).signatures
    if owners.locktime > now:
        raise InvalidParams("output is time locked")
    if owners.threshold < len(indices):
        raise InvalidParams("input has more signers than expected")
    if owners.threshold > len(indices):
        raise InvalidParams("input has less signers than expected")
    if len(indices) != len(signatures):
        raise InvalidParams(
            "input expected a different number of signers than provided in the credential"
        )
    for index, signature in zip(indices, signatures, strict=True):
        if index >= len(owners.addresses):
            raise InvalidParams("input referenced a nonexistent address in the output")
        if signers.address(signature) != owners.addresses[index]:
            raise InvalidParams("wrong signature")
