"""Verifying Warp signatures as avalanchego does: the canonical validator set, then a
BitSetSignature's network, bitset, quorum and aggregate BLS signature.

Public API: `ValidatorEntry(node_id, public_key, weight)` (one validator of a subnet at a P-Chain
height; `public_key` 48 compressed bytes or None), `canonical_validator_set(entries)` →
`CanonicalValidatorSet` (validators without a key dropped but their weight counted, equal keys
merged, sorted by the 96-byte uncompressed key), `verify_signature(message, network_id, set,
quorum_num, quorum_den)` raising InvalidParams with avalanchego's wording.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from snowfield.crypto import bls
from snowfield.errors import InvalidParams
from snowfield.formats.ids import NodeID
from snowfield.formats.warp.message import Message

MAX_WEIGHT = 2**64 - 1


@dataclass(frozen=True, slots=True)
class ValidatorEntry:
    """A validator as the P-Chain reports it for a subnet at some height."""

    node_id: NodeID
    public_key: bytes | None
    weight: int


@dataclass(frozen=True, slots=True)
class WarpValidator:
    """One canonical signer: a BLS key and the summed weight of the nodes that use it."""

    public_key: bls.PublicKey
    weight: int
    node_ids: tuple[NodeID, ...]


@dataclass(frozen=True, slots=True)
class CanonicalValidatorSet:
    """Signers in bitset order and the weight of the whole set (keyless validators included)."""

    validators: tuple[WarpValidator, ...]
    total_weight: int


def canonical_validator_set(entries: Iterable[ValidatorEntry]) -> CanonicalValidatorSet:
    total = 0
    merged: dict[bytes, WarpValidator] = {}
    for entry in entries:
        total += entry.weight
        if total > MAX_WEIGHT:
            raise InvalidParams("weight overflowed")
        if entry.public_key is None:
            continue
        key = bls.PublicKey.from_bytes(entry.public_key)
        order = key.to_uncompressed()
        known = merged.get(order)
        weight = entry.weight + (known.weight if known else 0)
        node_ids = (*(known.node_ids if known else ()), entry.node_id)
        merged[order] = WarpValidator(key, weight, node_ids)
    ordered = tuple(merged[order] for order in sorted(merged))
    return CanonicalValidatorSet(ordered, total)


def _signers(message: Message, validators: CanonicalValidatorSet) -> list[WarpValidator]:
    indices = message.signature.signer_indices()
    count = len(validators.validators)
    if indices and indices[-1] >= count:
        raise InvalidParams(
            f"unknown validator: NumIndices ({indices[-1]}) >= NumFilteredValidators ({count})"
        )
    return [validators.validators[i] for i in indices]


def verify_signature(
    message: Message,
    network_id: int,
    validators: CanonicalValidatorSet,
    quorum_num: int,
    quorum_den: int,
) -> None:
    """Raise InvalidParams unless `message` carries a valid quorum signature of `validators`."""
    if message.unsigned.network_id != network_id:
        raise InvalidParams("wrong networkID")
    signers = _signers(message, validators)
    signed = sum(v.weight for v in signers)
    total = validators.total_weight
    if quorum_num * total > quorum_den * signed:
        raise InvalidParams(
            f"signature weight is insufficient: {quorum_num}*{total} > {quorum_den}*{signed}"
        )
    signature = bls.Signature.from_bytes(message.signature.signature)
    aggregate = bls.aggregate_public_keys([v.public_key for v in signers])
    if not bls.verify(aggregate, signature, message.unsigned.encode()):
        raise InvalidParams("signature is invalid")
