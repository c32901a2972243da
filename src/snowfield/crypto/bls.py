"""BLS12-381 (min-pk) keys, signatures and proofs of possession as avalanchego uses them.

The only module that imports pyblst (blst, the real node's library). pyblst exposes curve points
and pairings, not the IETF signature scheme, so the scheme's few steps are written here:
sign = sk·H(msg, DST), verify by e(pk, H(msg)) == e(g1, sig), aggregation by point addition.

Public API: `SecretKey.from_bytes(32 bytes)` / `.generate()` / `.to_bytes()` / `.public_key()` /
`.sign(msg)` / `.prove_possession()`; `PublicKey.from_bytes(48 bytes)` (checked: on the curve, in
the subgroup, not the identity) / `.to_bytes()` / `.to_uncompressed()` (96 bytes, the order of
canonical validator sets); `Signature.from_bytes(96 bytes)` / `.to_bytes()`; `verify`,
`verify_proof_of_possession`, `aggregate_public_keys`, `aggregate_signatures`.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from pyblst import BlstP1Element, BlstP2Element, final_verify, miller_loop

from snowfield.errors import InvalidParams

SECRET_KEY_LEN = 32
PUBLIC_KEY_LEN = 48
SIGNATURE_LEN = 96
SIGNATURE_DST = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"
POP_DST = b"BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"

# The group order r and the base field prime p of BLS12-381.
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
P = int(
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
    16,
)
_G1 = BlstP1Element.uncompress(
    bytes.fromhex(
        "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    )
)
_IDENTITY_G1 = BlstP1Element()
Point = TypeVar("Point", BlstP1Element, BlstP2Element)
_FLAG_BITS = 0xE0  # compression, infinity and sign flags in the first byte


def _uncompress(group: type[Point], data: bytes, length: int, error: str) -> Point:
    """A compressed point that is on the curve and in the prime-order subgroup."""
    if len(data) != length:
        raise InvalidParams(error)
    try:
        point = group.uncompress(bytes(data))
    except ValueError:
        raise InvalidParams(error) from None
    if point.scalar_mul(R) != group():
        raise InvalidParams(error)
    return point


def _sum(points: Sequence[Point], error: str) -> Point:
    if not points:
        raise InvalidParams(error)
    total = points[0]
    for point in points[1:]:
        total = total + point
    return total


@dataclass(frozen=True, slots=True)
class PublicKey:
    """A G1 point; construct with `from_bytes` (validated) or from a SecretKey."""

    point: BlstP1Element

    @classmethod
    def from_bytes(cls, data: bytes) -> PublicKey:
        point = _uncompress(BlstP1Element, data, PUBLIC_KEY_LEN, "couldn't decompress public key")
        if point == _IDENTITY_G1:
            raise InvalidParams("couldn't decompress public key")
        return cls(point)

    def to_bytes(self) -> bytes:
        return bytes(self.point.compress())

    def to_uncompressed(self) -> bytes:
        """x ‖ y, 48 big-endian bytes each (blst's uncompressed serialization)."""
        compressed = self.to_bytes()
        x = int.from_bytes(bytes([compressed[0] & ~_FLAG_BITS & 0xFF]) + compressed[1:], "big")
        y = pow((x**3 + 4) % P, (P + 1) // 4, P)
        if bool(compressed[0] & 0x20) != (y > P - y):
            y = P - y
        return x.to_bytes(48, "big") + y.to_bytes(48, "big")


@dataclass(frozen=True, slots=True)
class Signature:
    """A G2 point; construct with `from_bytes` (validated) or by signing."""

    point: BlstP2Element

    @classmethod
    def from_bytes(cls, data: bytes) -> Signature:
        return cls(_uncompress(BlstP2Element, data, SIGNATURE_LEN, "couldn't decompress signature"))

    def to_bytes(self) -> bytes:
        return bytes(self.point.compress())


@dataclass(frozen=True, slots=True, repr=False)
class SecretKey:
    """A scalar in [1, r); its bytes are 32 big-endian bytes."""

    scalar: int

    def __post_init__(self) -> None:
        if not 0 < self.scalar < R:
            raise InvalidParams("couldn't deserialize secret key")

    def __repr__(self) -> str:
        return "SecretKey(<hidden>)"

    @classmethod
    def from_bytes(cls, data: bytes) -> SecretKey:
        if len(data) != SECRET_KEY_LEN:
            raise InvalidParams("couldn't deserialize secret key")
        return cls(int.from_bytes(data, "big"))

    @classmethod
    def generate(cls) -> SecretKey:
        return cls(secrets.randbelow(R - 1) + 1)

    def to_bytes(self) -> bytes:
        return self.scalar.to_bytes(SECRET_KEY_LEN, "big")

    def public_key(self) -> PublicKey:
        return PublicKey(_G1.scalar_mul(self.scalar))

    def sign(self, message: bytes) -> Signature:
        return Signature(
            BlstP2Element.hash_to_group(message, SIGNATURE_DST).scalar_mul(self.scalar)
        )

    def prove_possession(self) -> Signature:
        """The proof of possession: a signature over the compressed public key, POP DST."""
        return self.sign_proof_of_possession(self.public_key().to_bytes())

    def sign_proof_of_possession(self, message: bytes) -> Signature:
        """A signature with the POP DST (avalanchego signs a peer's claimed IP this way)."""
        digest = BlstP2Element.hash_to_group(message, POP_DST)
        return Signature(digest.scalar_mul(self.scalar))


def _pairing_holds(public_key: PublicKey, signature: Signature, message: bytes, dst: bytes) -> bool:
    digest = BlstP2Element.hash_to_group(message, dst)
    return bool(
        final_verify(miller_loop(public_key.point, digest), miller_loop(_G1, signature.point))
    )


def verify(public_key: PublicKey, signature: Signature, message: bytes) -> bool:
    return _pairing_holds(public_key, signature, message, SIGNATURE_DST)


def verify_proof_of_possession(
    public_key: PublicKey, proof: Signature, message: bytes | None = None
) -> bool:
    """A POP-DST signature over `message` (default: the key itself, its proof of possession)."""
    signed = public_key.to_bytes() if message is None else message
    return _pairing_holds(public_key, proof, signed, POP_DST)


def aggregate_public_keys(keys: Sequence[PublicKey]) -> PublicKey:
    return PublicKey(_sum([key.point for key in keys], "no public keys"))


def aggregate_signatures(signatures: Sequence[Signature]) -> Signature:
    return Signature(_sum([signature.point for signature in signatures], "no signatures"))
