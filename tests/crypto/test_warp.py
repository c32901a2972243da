"""Warp signature verification: canonical validator sets and every rejection avalanchego makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from snowfield.crypto import bls
from snowfield.crypto.warp import (
    ValidatorEntry,
    canonical_validator_set,
    verify_signature,
)
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, NodeID
from snowfield.formats.warp.message import BitSetSignature, Message, UnsignedMessage

LOCAL = Path(__file__).parent / "vectors" / "avalanchego_local"
KEYS = [bls.SecretKey.from_bytes((LOCAL / f"signer{i}.key").read_bytes()) for i in range(1, 6)]
UNSIGNED = UnsignedMessage(12345, ID(b"\x07" * 32), b"payload")


def _node(i: int) -> NodeID:
    return NodeID(bytes([i]) * 20)


def _entries() -> list[ValidatorEntry]:
    keyed = [
        ValidatorEntry(_node(i), k.public_key().to_bytes(), 10 * (i + 1))
        for i, k in enumerate(KEYS[:4])
    ]
    return [*keyed, ValidatorEntry(_node(9), None, 100)]


def _signed(
    validators: list[int], keys: list[bls.SecretKey], unsigned: UnsignedMessage = UNSIGNED
) -> Message:
    signature = bls.aggregate_signatures([k.sign(unsigned.encode()) for k in keys])
    return Message(unsigned, BitSetSignature.from_indices(validators, signature.to_bytes()))


def test_canonical_set_orders_by_uncompressed_key_and_counts_keyless_weight() -> None:
    entries = _entries()
    canonical = canonical_validator_set(reversed(entries))
    assert canonical.total_weight == 10 + 20 + 30 + 40 + 100
    uncompressed = [v.public_key.to_uncompressed() for v in canonical.validators]
    assert uncompressed == sorted(uncompressed) and len(uncompressed) == 4
    assert canonical_validator_set(entries) == canonical


def test_equal_keys_merge() -> None:
    key = KEYS[0].public_key().to_bytes()
    canonical = canonical_validator_set(
        [ValidatorEntry(_node(1), key, 5), ValidatorEntry(_node(2), key, 7)]
    )
    (only,) = canonical.validators
    assert (only.weight, only.node_ids) == (12, (_node(1), _node(2)))


def _index_of(canonical_keys: list[bytes], key: bls.SecretKey) -> int:
    return canonical_keys.index(key.public_key().to_bytes())


def test_quorum_signature_verifies_and_rejections_are_avalanchegos() -> None:
    canonical = canonical_validator_set(_entries())
    order = [v.public_key.to_bytes() for v in canonical.validators]
    everyone = [_index_of(order, k) for k in KEYS[:4]]
    message = _signed(everyone, KEYS[:4])
    verify_signature(message, 12345, canonical, 50, 100)
    with pytest.raises(
        InvalidParams, match=r"signature weight is insufficient: 67\*200 > 100\*100"
    ):
        verify_signature(message, 12345, canonical, 67, 100)
    with pytest.raises(InvalidParams, match="wrong networkID"):
        verify_signature(message, 1, canonical, 50, 100)
    wrong = _signed(everyone, [*KEYS[:3], KEYS[4]])
    with pytest.raises(InvalidParams, match="signature is invalid"):
        verify_signature(wrong, 12345, canonical, 50, 100)
    beyond = _signed([*everyone, 4], KEYS[:4])
    with pytest.raises(
        InvalidParams, match=r"unknown validator: NumIndices \(4\) >= NumFilteredValidators \(4\)"
    ):
        verify_signature(beyond, 12345, canonical, 50, 100)


def test_a_subset_signs_for_its_weight() -> None:
    canonical = canonical_validator_set(_entries()[:4])
    order = [v.public_key.to_bytes() for v in canonical.validators]
    signers = [KEYS[2], KEYS[3]]
    message = _signed([_index_of(order, k) for k in signers], signers)
    verify_signature(message, 12345, canonical, 67, 100)
    # The signers' weight (70 of 100) as the refusal states it.
    with pytest.raises(InvalidParams, match=r"insufficient: 71\*100 > 100\*70"):
        verify_signature(message, 12345, canonical, 71, 100)


def test_overflowing_weights_are_rejected() -> None:
    with pytest.raises(InvalidParams, match="weight overflowed"):
        canonical_validator_set(
            [ValidatorEntry(_node(1), None, 2**64 - 1), ValidatorEntry(_node(2), None, 1)]
        )
