"""The P-Chain signs L1ValidatorRegistration(false) as avalanchego's does: with a justification
whose preimage is the validation id's (a ConvertSubnetToL1Tx's subnet and index, or the
RegisterL1Validator message), when the validation is not current and can never become so
(removed, or its registration window passed); everything else gets the real verifier's
AppError code and text. The aggregator gathers such a signature over the peer protocol."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from snowfield.aggregator.aggregate import AggregationRequest
from snowfield.aggregator.validators import AggregationError
from snowfield.crypto.bls import SecretKey
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.l1_txs import PChainOwner, initial_validation_id
from snowfield.formats.warp.justification import (
    SubnetIDIndex,
    decode_justification,
    encode_justification,
)
from snowfield.formats.warp.message import UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, encode_payload
from snowfield.formats.warp.platform_messages import (
    L1ValidatorRegistration,
    RegisterL1Validator,
    encode_message,
)
from snowfield.node.warp_signing import PlatformVerifier
from snowfield.p2p.peer import AppError
from snowfield.testing import RunningNode, serve_devnet
from tests.aggregator.test_aggregate import aggregate, check

OWNER = PChainOwner(1, (ShortID(bytes(range(20))),))


@pytest.fixture(scope="module")
def l1() -> Iterator[tuple[RunningNode, ID]]:
    with serve_devnet(validators=3, l1=("reg",)) as node:
        (chain,) = [c for c in node.node.platform.chain.blockchains() if c.name == "reg"]
        yield node, chain.subnet_id


def _register(subnet: ID, expiry: int, seed: int) -> RegisterL1Validator:
    key = SecretKey.generate().public_key().to_bytes()
    return RegisterL1Validator(subnet, bytes([seed]) * 20, key, expiry, OWNER, OWNER, 10)


def _not_registered(node: RunningNode, validation_id: ID) -> UnsignedMessage:
    payload = encode_message(L1ValidatorRegistration(validation_id, False))
    return UnsignedMessage(
        node.node.settings.network_id, P_CHAIN_ID, encode_payload(AddressedCall(b"", payload))
    )


def _verify(node: RunningNode, message: UnsignedMessage, justification: bytes) -> None:
    PlatformVerifier(lambda: node.node.platform.chain).verify(message, justification)


def _refused(node: RunningNode, message: UnsignedMessage, justification: bytes) -> AppError:
    with pytest.raises(AppError) as raised:
        _verify(node, message, justification)
    return raised.value


@pytest.mark.parametrize(
    "preimage", [SubnetIDIndex(bytes(range(32)), 0), SubnetIDIndex(b"\x01" * 32, 7), b"\x00" * 9]
)
def test_justification_round_trips(preimage: SubnetIDIndex | bytes) -> None:
    assert decode_justification(encode_justification(preimage)) == preimage


def test_an_expired_registration_is_attested_and_aggregated(l1: tuple[RunningNode, ID]) -> None:
    node, subnet = l1
    now = node.node.platform.chain.state.timestamp
    expired = _register(subnet, now - 1, 1)
    message = _not_registered(node, expired.validation_id)
    justification = encode_justification(encode_message(expired))
    _verify(node, message, justification)
    # the primary network's validators sign it, over the peer protocol
    signed, _ = asyncio.run(aggregate(node, AggregationRequest(message, justification)))
    check(node, signed)
    # and the L1's own validators (an L1 verifies a P-Chain message against its set)
    request = AggregationRequest(message, justification, signing_subnet=str(subnet))
    signed, _ = asyncio.run(aggregate(node, request))
    check(node, signed)


def test_refusals_carry_avalanchegos_codes(l1: tuple[RunningNode, ID]) -> None:
    node, subnet = l1
    now = node.node.platform.chain.state.timestamp
    pending = _register(subnet, now + 3600, 2)  # could still be registered
    message = _not_registered(node, pending.validation_id)
    refused = _refused(node, message, encode_justification(encode_message(pending)))
    assert refused.code == 14
    assert refused.message == (
        f'validation "{pending.validation_id}" can be registered until {pending.expiry}'
    )
    other = _register(subnet, now - 1, 3)
    refused = _refused(node, message, encode_justification(encode_message(other)))
    assert refused.code == 10 and "!= justificationID" in refused.message
    assert _refused(node, message, b"").code == 8  # no preimage
    assert _refused(node, message, b"\xff").code == 5  # not protobuf
    assert _refused(node, message, encode_justification(b"\x00\x00")).code == 13
    # an initial validator of the conversion that is still current
    current = initial_validation_id(subnet, 0)
    index = encode_justification(SubnetIDIndex(subnet.raw, 0))
    refused = _refused(node, _not_registered(node, current), index)
    assert (refused.code, refused.message) == (12, f'validation "{current}" exists')
    # an index past the conversion's validators: never registered, so attested
    beyond = initial_validation_id(subnet, 99)
    _verify(
        node, _not_registered(node, beyond), encode_justification(SubnetIDIndex(subnet.raw, 99))
    )
    unknown = ID(b"\x05" * 32)
    refused = _refused(
        node,
        _not_registered(node, initial_validation_id(unknown, 0)),
        encode_justification(SubnetIDIndex(unknown.raw, 0)),
    )
    assert (refused.code, refused.message) == (6, f'subnet "{unknown}" has not been converted')
    refused = _refused(
        node, _not_registered(node, beyond), encode_justification(SubnetIDIndex(b"\x01", 99))
    )
    assert refused.code == 9


def test_a_refused_attestation_is_not_aggregated(l1: tuple[RunningNode, ID]) -> None:
    node, subnet = l1
    now = node.node.platform.chain.state.timestamp
    pending = _register(subnet, now + 3600, 4)
    message = _not_registered(node, pending.validation_id)
    request = AggregationRequest(message, encode_justification(encode_message(pending)))
    with pytest.raises(AggregationError):
        asyncio.run(aggregate(node, request))
