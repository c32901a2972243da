"""secp256k1 public-key recovery for EVM signatures (the one owner of coincurve)."""

from __future__ import annotations

from coincurve import PublicKey

from snowfield.crypto.hashing import keccak

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def recover_address(message_hash: bytes, y_parity: int, r: int, s: int) -> bytes:
    """The 20-byte address that signed `message_hash`; raises ValueError if none can."""
    if not (0 < r < N and 0 < s < N) or y_parity not in (0, 1):
        raise ValueError("invalid signature values")
    signature = r.to_bytes(32, "big") + s.to_bytes(32, "big") + bytes([y_parity])
    public = PublicKey.from_signature_and_message(signature, message_hash, hasher=None)
    return keccak(public.format(compressed=False)[1:])[12:]
