"""Warp messages, payloads and P-Chain L1 messages: real Fuji messages and avalanchego vectors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.platform.l1_txs import initial_validation_id
from snowfield.formats.platform.txs import Tx
from snowfield.formats.warp.message import BitSetSignature, Message, UnsignedMessage
from snowfield.formats.warp.payload import (
    AddressedCall,
    Hash,
    Payload,
    decode_payload,
    encode_payload,
)
from snowfield.formats.warp.platform_messages import (
    L1Message,
    L1ValidatorRegistration,
    L1ValidatorWeight,
    RegisterL1Validator,
    SubnetToL1Conversion,
    SubnetToL1ConversionData,
    ValidatorData,
    decode_message,
    encode_message,
)
from tests.formats import platform_strategies as ps

VECTORS = Path(__file__).parent / "vectors"
FUJI = json.loads((VECTORS / "avalanchejs" / "warp_messages.json").read_text())
FEE_TXS = {
    case["name"]: case
    for case in json.loads((VECTORS / "avalanchego" / "fee_calculator_txs.json").read_text())["txs"]
}
SIG = bytes(range(96))


@pytest.mark.parametrize("name", sorted(FUJI))
def test_fuji_signed_message_round_trips(name: str) -> None:
    raw = bytes.fromhex(FUJI[name]["signed_message"])
    message = Message.decode(raw)
    assert message.encode() == raw
    assert message.unsigned.network_id == 5
    unsigned = message.unsigned.encode()
    assert raw.startswith(unsigned)
    assert message.id == ID(hashlib.sha256(unsigned).digest())
    call = decode_payload(message.unsigned.payload)
    assert isinstance(call, AddressedCall)
    assert encode_payload(call) == message.unsigned.payload
    assert encode_message(decode_message(call.payload)) == call.payload


def test_fuji_register_message_fields() -> None:
    message = Message.decode(bytes.fromhex(FUJI["register_l1_validator"]["signed_message"]))
    assert message.signature.signer_indices() == [3, 4, 8, 14, 18, 22, 23]
    call = decode_payload(message.unsigned.payload)
    assert isinstance(call, AddressedCall)
    register = decode_message(call.payload)
    assert isinstance(register, RegisterL1Validator)
    assert (register.weight, register.expiry, len(register.node_id)) == (20000, 1741794353, 20)
    assert register.validation_id == ID(hashlib.sha256(call.payload).digest())


def test_fuji_weight_message_fields() -> None:
    message = Message.decode(bytes.fromhex(FUJI["l1_validator_weight"]["signed_message"]))
    call = decode_payload(message.unsigned.payload)
    assert isinstance(call, AddressedCall)
    assert call.source_address.hex() == "0feedc0de0000000000000000000000000000000"
    weight = decode_message(call.payload)
    assert isinstance(weight, L1ValidatorWeight)
    assert (weight.nonce, weight.weight) == (4, 41)


@pytest.mark.parametrize("name", ["RegisterL1ValidatorTx", "SetL1ValidatorWeightTx"])
def test_messages_inside_avalanchego_txs(name: str) -> None:
    tx = Tx.decode(bytes.fromhex(FEE_TXS[name]["tx"]))
    raw = tx.unsigned.message  # type: ignore[attr-defined]
    message = Message.decode(raw)
    assert message.encode() == raw
    call = decode_payload(message.unsigned.payload)
    assert isinstance(call, AddressedCall)
    assert encode_message(decode_message(call.payload)) == call.payload


def test_conversion_id_matches_avalanchego() -> None:
    doc = json.loads((VECTORS / "avalanchego" / "subnet_to_l1_conversion.json").read_text())
    raw = bytes.fromhex(doc["vectors"]["subnetToL1ConversionDataBytes"])
    data = SubnetToL1ConversionData.decode(raw)
    assert data.encode() == raw
    assert data.manager_address == b"A" and data.validators[0].node_id == b"BCDEFGHIJKLMNOPQRSTU"
    assert data.conversion_id == ID(hashlib.sha256(raw).digest())


def test_small_messages_lay_out_as_documented() -> None:
    vid = ID(bytes(range(32)))
    assert encode_message(SubnetToL1Conversion(vid)) == bytes.fromhex("000000000000") + vid.raw
    registration = encode_message(L1ValidatorRegistration(vid, True))
    assert registration == bytes.fromhex("000000000002") + vid.raw + b"\x01"
    weight = encode_message(L1ValidatorWeight(vid, 7, 9))
    assert weight == bytes.fromhex("000000000003") + vid.raw + (7).to_bytes(8, "big") + (
        9
    ).to_bytes(8, "big")
    assert encode_payload(Hash(vid)) == bytes.fromhex("000000000000") + vid.raw


def test_signed_message_is_unsigned_then_bitset_signature() -> None:
    unsigned = UnsignedMessage(12345, ID(bytes(32)), b"hi")
    signed = Message(unsigned, BitSetSignature.from_indices([0, 9], SIG))
    assert signed.encode() == unsigned.encode() + bytes.fromhex("00000000000000020201") + SIG
    assert len(unsigned.encode()) == 42 + 2
    assert Message.decode(signed.encode()) == signed


@pytest.mark.parametrize(
    ("signers", "indices"), [(b"", []), (b"\x01", [0]), (b"\x80", [7]), (b"\x01\x00", [8])]
)
def test_bitset_indices(signers: bytes, indices: list[int]) -> None:
    assert BitSetSignature(signers, SIG).signer_indices() == indices
    assert BitSetSignature.from_indices(indices, SIG).signers == signers


def test_bitset_with_leading_zero_byte_is_invalid() -> None:
    with pytest.raises(InvalidParams, match="bitset is invalid"):
        BitSetSignature(b"\x00\x01", SIG)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda raw: raw[:-1],  # truncated
        lambda raw: raw + b"\x00",  # trailing
        lambda raw: b"\x00\x01" + raw[2:],  # wrong codec version
        lambda raw: raw[:46] + b"\x00\x00\x00\x07" + raw[50:],  # unknown signature type
    ],
)
def test_malformed_messages_are_rejected(mutate: object) -> None:
    raw = Message(
        UnsignedMessage(1, ID(bytes(32)), b"abcd"), BitSetSignature(b"\x01", SIG)
    ).encode()
    with pytest.raises(InvalidParams):
        Message.decode(mutate(raw))  # type: ignore[operator]


def test_unknown_payload_and_message_types_are_rejected() -> None:
    with pytest.raises(InvalidParams, match="unknown warp payload type id 2"):
        decode_payload(bytes.fromhex("000000000002"))
    with pytest.raises(InvalidParams, match="unknown L1 warp message type id 9"):
        decode_message(bytes.fromhex("000000000009"))
    with pytest.raises(InvalidParams, match="exceeds maximum length"):
        decode_payload(bytes(24 * 1024 + 1))


PAYLOADS = st.builds(Hash, ps.IDS) | st.builds(
    AddressedCall, st.binary(max_size=32), st.binary(max_size=64)
)
L1_MESSAGES = st.one_of(
    st.builds(SubnetToL1Conversion, ps.IDS),
    st.builds(
        RegisterL1Validator,
        ps.IDS,
        st.binary(max_size=32),
        st.binary(min_size=48, max_size=48),
        ps.U64,
        ps.p_chain_owners(),
        ps.p_chain_owners(),
        ps.U64,
    ),
    st.builds(L1ValidatorRegistration, ps.IDS, st.booleans()),
    st.builds(L1ValidatorWeight, ps.IDS, ps.U64, ps.U64),
)
SIGNATURES = st.builds(
    BitSetSignature.from_indices,
    st.lists(st.integers(0, 300), max_size=8),
    st.binary(min_size=96, max_size=96),
)


@given(PAYLOADS)
def test_payloads_round_trip(payload: Payload) -> None:
    assert decode_payload(encode_payload(payload)) == payload


@given(L1_MESSAGES)
def test_l1_messages_round_trip(message: L1Message) -> None:
    assert decode_message(encode_message(message)) == message


@given(ps.U32, ps.IDS, st.binary(max_size=128), SIGNATURES)
def test_signed_messages_round_trip(
    network_id: int, chain: ID, payload: bytes, signature: BitSetSignature
) -> None:
    message = Message(UnsignedMessage(network_id, chain, payload), signature)
    assert Message.decode(message.encode()) == message
    assert (
        BitSetSignature.from_indices(signature.signer_indices(), signature.signature) == signature
    )


@given(
    ps.IDS,
    ps.IDS,
    st.binary(max_size=40),
    st.lists(
        st.builds(
            ValidatorData, st.binary(max_size=20), st.binary(min_size=48, max_size=48), ps.U64
        ),
        max_size=3,
    ),
)
def test_conversion_data_round_trips(
    subnet: ID, chain: ID, address: bytes, validators: list[ValidatorData]
) -> None:
    data = SubnetToL1ConversionData(subnet, chain, address, tuple(validators))
    assert SubnetToL1ConversionData.decode(data.encode()) == data


def test_initial_validation_ids() -> None:
    subnet = ID(bytes(range(32)))
    assert initial_validation_id(subnet, 0) == ID(hashlib.sha256(subnet.raw + bytes(4)).digest())
    assert initial_validation_id(subnet, 258) == ID(
        hashlib.sha256(subnet.raw + b"\x00\x00\x01\x02").digest()
    )
