"""The messenger's events: topics are the keccak of their signatures, the devnet messenger's
address is the workload's keyless deployment, and malformed logs fail with IcmDecodeError."""

from __future__ import annotations

import contextlib

import pytest
from eth_abi import encode
from hypothesis import given
from hypothesis import strategies as st

from snowfield.crypto.hashing import keccak
from snowfield.formats import icm
from snowfield.formats.ids import ID
from snowfield.workload.icm import KEYLESS, TOPICS

CHAIN = ID(bytes(range(32)))
MESSAGE = (
    7,
    "0x" + "11" * 20,
    CHAIN.raw,
    "0x" + "22" * 20,
    100_000,
    ["0x" + "33" * 20],
    [(3, "0x" + "44" * 20)],
    b"payload",
)


def _topic(raw: bytes) -> str:
    return "0x" + raw.hex()


def test_topics_are_the_keccak_of_their_signatures() -> None:
    for topic, signature in icm.SIGNATURES.items():
        assert topic == _topic(keccak(signature.encode())), signature
    assert {_topic(t) for t in TOPICS.values()} >= set(icm.SIGNATURES)


def test_the_devnet_messenger_address_is_the_keyless_deployment() -> None:
    assert KEYLESS.address in icm.MESSENGER_ADDRESSES


def test_send_and_receive_decode() -> None:
    message_id = "ab" * 32
    data = encode([icm.MESSAGE_TYPE, icm.FEE_TYPE], [MESSAGE, ("0x" + "55" * 20, 9)])
    sent = icm.decode_event([icm.SEND, "0x" + message_id, _topic(CHAIN.raw)], data)
    assert sent is not None and sent.kind == "send" and sent.message_id == message_id
    assert sent.peer_chain == str(CHAIN) and sent.fee_amount == 9
    assert sent.message == icm.Message(
        7,
        "0x" + "11" * 20,
        str(CHAIN),
        "0x" + "22" * 20,
        100_000,
        ("0x" + "33" * 20,),
        ((3, "0x" + "44" * 20),),
        b"payload",
    )
    data = encode(["address", icm.MESSAGE_TYPE], ["0x" + "66" * 20, MESSAGE])
    deliverer = "0x" + "00" * 12 + "77" * 20
    got = icm.decode_event([icm.RECEIVE, "0x" + message_id, _topic(CHAIN.raw), deliverer], data)
    assert got is not None and got.deliverer == "0x" + "77" * 20
    assert got.reward_redeemer == "0x" + "66" * 20


def test_other_events_are_not_the_messengers() -> None:
    transfer = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    assert icm.decode_event([transfer, "0x" + "00" * 32, "0x" + "00" * 32], b"") is None
    assert icm.decode_event([], b"") is None


@pytest.mark.parametrize(
    ("topics", "data"),
    [
        ([icm.SEND, "0x" + "ab" * 32], b""),  # a topic missing
        ([icm.SEND, "0x" + "ab" * 32, "0x" + "00" * 32], b"\x00" * 31),  # truncated data
        ([icm.EXECUTED, "0x" + "ab" * 31, "0x" + "00" * 32], b""),  # a short topic
        ([icm.RECEIPT_RECEIVED, "0x" + "ab" * 32, "0x" + "00" * 32, "0x" + "ff" * 32], b""),
    ],
)
def test_malformed_messenger_logs_are_refused(topics: list[str], data: bytes) -> None:
    with pytest.raises(icm.IcmDecodeError):
        icm.decode_event(topics, data)


@given(
    st.sampled_from(sorted(icm.SIGNATURES)),
    st.lists(st.binary(min_size=32, max_size=32), max_size=4),
    st.binary(max_size=600),
)
def test_arbitrary_logs_decode_or_fail_cleanly(head: str, words: list[bytes], data: bytes) -> None:
    with contextlib.suppress(icm.IcmDecodeError):
        icm.decode_event([head, *(_topic(w) for w in words)], data)
