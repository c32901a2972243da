"""ProposerVM wrapper: hand-laid byte vectors, a real signed block from avalanchego, round-trips."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, NodeID
from snowfield.formats.proposervm import (
    Epoch,
    OptionBlock,
    ProposerBlock,
    StatelessBlock,
    parse,
    signing_header,
)
from snowfield.formats.ripemd160 import hash160

VECTORS = Path(__file__).parent / "vectors"
# avalanchego's block tests use parentID = ids.ID{1}: a 1 byte then 31 zeros.
PARENT = ID(b"\x01" + bytes(31))
PARENT_HEX = "01" + "00" * 31

UNSIGNED_HEX = (
    "0000"  # codec version
    "00000000"  # type id: statelessBlock
    + PARENT_HEX
    + "000000000000007b"  # timestamp 123
    "0000000000000002"  # P-Chain height 2
    "00000000"  # certificate: empty
    "00000001" "03"  # inner block
    "00000000"  # signature: empty
)  # fmt: skip
OPTION_HEX = "0000" "00000001" + PARENT_HEX + "00000001" "03"  # fmt: skip
GRANITE_HEX = (
    "0000"
    "00000002"  # type id: statelessGraniteBlock
    + PARENT_HEX
    + "000000000000007b"
    "0000000000000002"
    "00000002" "abcd"  # certificate
    "00000001" "03"
    "0000000000000002"  # epoch P-Chain height
    "0000000000000001"  # epoch number
    "000000000000007b"  # epoch start time
    "00000003" "eeeeee"  # signature
)  # fmt: skip


def test_unsigned_block_vector() -> None:
    block = StatelessBlock(PARENT, b"\x03", timestamp=123, p_chain_height=2)
    data = bytes.fromhex(UNSIGNED_HEX)
    assert block.encode() == data
    assert block.id == ID(hashlib.sha256(data[:-4]).digest())
    assert block.proposer is None
    assert ProposerBlock.parse(data) == block


def test_option_vector() -> None:
    block = OptionBlock(PARENT, b"\x03")
    data = bytes.fromhex(OPTION_HEX)
    assert block.encode() == data
    assert block.id == ID(hashlib.sha256(data).digest())
    assert parse(data) == block


def test_granite_vector() -> None:
    block = StatelessBlock(
        PARENT,
        b"\x03",
        timestamp=123,
        p_chain_height=2,
        certificate=b"\xab\xcd",
        signature=b"\xee\xee\xee",
        epoch=Epoch(p_chain_height=2, number=1, start_time=123),
    )
    data = bytes.fromhex(GRANITE_HEX)
    assert block.encode() == data
    assert block.id == ID(hashlib.sha256(data[: -(4 + 3)]).digest())
    assert parse(data) == block


def test_signed_block_from_avalanchego() -> None:
    # TestParseDuplicateExtension's block (vms/proposervm/block/parse_test.go). The node rejects it
    # for its certificate's duplicate extension; structurally it is a signed statelessBlock.
    data = bytes.fromhex((VECTORS / "proposervm_signed_block.hex").read_text().strip())
    block = parse(data)
    assert isinstance(block, StatelessBlock)
    assert (block.parent_id, block.timestamp, block.p_chain_height) == (PARENT, 123, 2)
    assert (block.inner_block, block.epoch) == (b"\x03", None)
    assert (len(block.certificate), len(block.signature)) == (0x4BD, 0x200)
    assert block.certificate[:4] == bytes.fromhex("308204b9")  # a DER SEQUENCE of 0x4b9 bytes
    assert block.encode() == data
    assert block.id == ID(hashlib.sha256(data[: -(4 + 0x200)]).digest())
    assert block.proposer == NodeID(hash160(block.certificate))


def test_signing_header_layout() -> None:
    chain, parent, body = ID(b"\x01" * 32), ID(b"\x02" * 32), ID(b"\x03" * 32)
    header = signing_header(chain, parent, body)
    assert header == b"\x00\x00" + b"\x01" * 32 + b"\x02" * 32 + b"\x03" * 32


IDS = st.binary(min_size=32, max_size=32).map(ID)
BLOBS = st.binary(max_size=64)
I64 = st.integers(-(2**63), 2**63 - 1)
U64 = st.integers(0, 2**64 - 1)
EPOCHS = st.none() | st.builds(Epoch, U64, U64, I64)
STATELESS = st.builds(
    StatelessBlock,
    IDS,
    BLOBS,
    timestamp=I64,
    p_chain_height=U64,
    certificate=BLOBS,
    signature=BLOBS,
    epoch=EPOCHS,
)
OPTIONS = st.builds(OptionBlock, IDS, BLOBS)


@given(STATELESS | OPTIONS)
def test_round_trip(block: ProposerBlock) -> None:
    data = block.encode()
    parsed = parse(data)
    assert parsed == block
    assert parsed.encode() == data
    assert parsed.id == block.id


@given(STATELESS, BLOBS)
def test_id_ignores_the_signature(block: StatelessBlock, other_signature: bytes) -> None:
    # Invariant: signing must not change the id it signs over.
    resigned = StatelessBlock(
        block.parent_id,
        block.inner_block,
        timestamp=block.timestamp,
        p_chain_height=block.p_chain_height,
        certificate=block.certificate,
        signature=other_signature,
        epoch=block.epoch,
    )
    assert resigned.id == block.id


@given(STATELESS, BLOBS)
def test_id_covers_the_certificate(block: StatelessBlock, certificate: bytes) -> None:
    if certificate != block.certificate:
        changed = StatelessBlock(
            block.parent_id,
            block.inner_block,
            timestamp=block.timestamp,
            p_chain_height=block.p_chain_height,
            certificate=certificate,
            signature=block.signature,
            epoch=block.epoch,
        )
        assert changed.id != block.id


def test_zero_epoch_stays_granite() -> None:
    # A type-2 block with an all-zero epoch parses (the node only rejects it on verify) and must
    # re-encode as type 2, or its id would change.
    block = StatelessBlock(PARENT, b"", timestamp=0, p_chain_height=0, epoch=Epoch(0, 0, 0))
    assert block.encode()[2:6] == b"\x00\x00\x00\x02"
    assert parse(block.encode()) == block


@given(STATELESS | OPTIONS, st.data())
def test_truncation_is_refused(block: ProposerBlock, data: st.DataObject) -> None:
    encoded = block.encode()
    cut = data.draw(st.integers(0, len(encoded) - 1))
    with pytest.raises(InvalidParams):
        parse(encoded[:cut])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (bytes.fromhex(UNSIGNED_HEX) + b"\x00", "trailing buffer space"),
        (bytes.fromhex(OPTION_HEX) + b"\x00", "trailing buffer space"),
        (bytes.fromhex("0001" + UNSIGNED_HEX[4:]), "unknown codec version"),
        (bytes.fromhex("000000000003" + PARENT_HEX), "unknown proposervm block type id 3"),
        (bytes([0, 1, 2, 3, 4, 5]), "unknown codec version"),  # avalanchego's TestParseGibberish
        (b"", "couldn't unpack codec version"),
    ],
)
def test_parse_errors(data: bytes, message: str) -> None:
    with pytest.raises(InvalidParams, match=message):
        parse(data)


def test_base_class_has_no_encoding() -> None:
    with pytest.raises(NotImplementedError):
        ProposerBlock(PARENT, b"").encode()
