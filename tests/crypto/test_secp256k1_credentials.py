"""Avalanche credential signatures: 65-byte r ‖ s ‖ v, low S, recovering the signer's key."""

from __future__ import annotations

import hashlib

import pytest

from snowfield.crypto.keys import EWOQ_KEY
from snowfield.crypto.secp256k1 import N, recover_public_key, sign_recoverable
from snowfield.errors import InvalidParams
from snowfield.formats.bech32 import format_address
from snowfield.formats.ids import ShortID

DIGEST = hashlib.sha256(b"unsigned tx bytes").digest()


def test_ewoq_signature_recovers_the_ewoq_address() -> None:
    signature = sign_recoverable(EWOQ_KEY, DIGEST)
    assert len(signature) == 65 and signature[64] in (0, 1)
    assert int.from_bytes(signature[32:64], "big") <= N // 2
    public_key = recover_public_key(DIGEST, signature)
    address = format_address("X", "local", ShortID.from_public_key(public_key).raw)
    assert address == "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


def test_high_s_is_a_mutated_signature() -> None:
    signature = sign_recoverable(EWOQ_KEY, DIGEST)
    s = int.from_bytes(signature[32:64], "big")
    mutated = signature[:32] + (N - s).to_bytes(32, "big") + bytes([signature[64] ^ 1])
    with pytest.raises(InvalidParams, match="mutated"):
        recover_public_key(DIGEST, mutated)


@pytest.mark.parametrize(
    ("signature", "message"),
    [
        (bytes(64), "invalid signature length"),
        (bytes(65), "invalid signature"),
        (b"\x01" * 64 + b"\x07", "invalid"),
    ],
)
def test_malformed_signatures_are_rejected(signature: bytes, message: str) -> None:
    with pytest.raises(InvalidParams, match=message):
        recover_public_key(DIGEST, signature)
