"""secp256k1 signing and public-key recovery for EVM signatures and Avalanche credentials
(the one owner of coincurve)."""

from __future__ import annotations

from coincurve import PrivateKey, PublicKey

from snowfield.crypto.hashing import keccak
from snowfield.errors import InvalidParams

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def recover_address(message_hash: bytes, y_parity: int, r: int, s: int) -> bytes:
    """The 20-byte address that signed `message_hash`; raises ValueError if none can."""
    if not (0 < r < N and 0 < s < N) or y_parity not in (0, 1):
        raise ValueError("invalid signature values")
    signature = r.to_bytes(32, "big") + s.to_bytes(32, "big") + bytes([y_parity])
    public = PublicKey.from_signature_and_message(signature, message_hash, hasher=None)
    return keccak(public.format(compressed=False)[1:])[12:]


def sign_recoverable(secret: bytes, digest: bytes) -> bytes:
    """The 65-byte r ‖ s ‖ v (v in {0, 1}, low S) signature of a 32-byte digest that Avalanche
    credentials carry; P- and X-Chain txs sign sha256(unsigned tx bytes)."""
    return bytes(PrivateKey(secret).sign_recoverable(digest, hasher=None))


def recover_public_key(digest: bytes, signature: bytes) -> bytes:
    """The 33-byte compressed key behind an Avalanche credential signature (avalanchego's rules:
    65 bytes, S in the low half); InvalidParams when none can be recovered."""
    if len(signature) != 65:
        raise InvalidParams("invalid signature length")
    if int.from_bytes(signature[32:64], "big") > N // 2:
        raise InvalidParams("signature was mutated from its original format")
    try:
        public = PublicKey.from_signature_and_message(signature, digest, hasher=None)
    except ValueError:
        raise InvalidParams("invalid signature") from None
    return bytes(public.format(compressed=True))


def public_key_of(secret: bytes) -> bytes:
    """The 33-byte compressed public key of a 32-byte secret (P/X-Chain addresses hash it)."""
    return bytes(PrivateKey(secret).public_key.format(compressed=True))


def eth_address_of(compressed_public_key: bytes) -> bytes:
    """The EVM address of a 33-byte compressed public key: keccak(uncompressed key)[12:]."""
    public = PublicKey(compressed_public_key)
    return keccak(public.format(compressed=False)[1:])[12:]
