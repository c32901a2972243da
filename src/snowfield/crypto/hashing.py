"""Hash functions used across chains: keccak-256 (EVM) and sha-256 (Avalanche ids)."""

from __future__ import annotations

import hashlib

from eth_hash.auto import keccak as _keccak


def keccak(data: bytes) -> bytes:
    return bytes(_keccak(data))


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()
