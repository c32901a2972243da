"""RIPEMD-160 and hash160 (ripemd160 of sha256), the digest behind Avalanche short ids.

pycryptodome provides RIPEMD-160: hashlib's depends on the OpenSSL build (3.x drops it by default).
"""

from __future__ import annotations

import hashlib

from Crypto.Hash import RIPEMD160


def ripemd160(data: bytes) -> bytes:
    """RIPEMD-160 digest (20 bytes)."""
    return RIPEMD160.new(data).digest()


def hash160(data: bytes) -> bytes:
    """ripemd160(sha256(data)): secp256k1 addresses and node ids (from a staking cert) use it."""
    return ripemd160(hashlib.sha256(data).digest())
