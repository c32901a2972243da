"""P-Chain blocks: Apricot blocks laid out by hand around avalanchego's real txs (avalanchego has
no Apricot block vectors; its Banff vectors are in test_platform_vectors), ids, ProposerVM
wrapping, bad input and Hypothesis round-trips."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.platform import blocks as b
from snowfield.formats.platform.txs import Tx
from snowfield.formats.platform.types import Block
from snowfield.formats.proposervm import StatelessBlock, parse
from tests.formats import platform_strategies as ps

VECTORS = Path(__file__).parent / "vectors" / "avalanchego" / "fee_calculator_txs.json"
TXS = {c["name"]: bytes.fromhex(c["tx"]) for c in json.loads(VECTORS.read_text())["txs"]}
PARENT = ID(b"\x01" + bytes(31))
COMMON = PARENT.raw + (7).to_bytes(8, "big")
TIME = (1_700_000_000).to_bytes(8, "big")


def _body(name: str) -> bytes:
    """A tx as blocks embed it: the signed bytes without their codec version."""
    return TXS[name][2:]


def _tx(name: str) -> Tx:
    return Tx.decode(TXS[name])


def _header(type_id: int) -> bytes:
    return b"\x00\x00" + type_id.to_bytes(4, "big")


CASES = [
    (
        b.ApricotProposalBlock(PARENT, 7, _tx("AdvanceTimeTx")),
        _header(0) + COMMON + _body("AdvanceTimeTx"),
    ),
    (b.ApricotAbortBlock(PARENT, 7), _header(1) + COMMON),
    (b.ApricotCommitBlock(PARENT, 7), _header(2) + COMMON),
    (
        b.ApricotStandardBlock(PARENT, 7, (_tx("BaseTx"), _tx("CreateSubnetTx"))),
        _header(3) + COMMON + b"\x00\x00\x00\x02" + _body("BaseTx") + _body("CreateSubnetTx"),
    ),
    (b.ApricotAtomicBlock(PARENT, 7, _tx("ImportTx")), _header(4) + COMMON + _body("ImportTx")),
    (
        b.BanffProposalBlock(
            1_700_000_000, (_tx("ExportTx"),), PARENT, 7, _tx("RewardValidatorTx")
        ),
        _header(29)
        + TIME
        + b"\x00\x00\x00\x01"
        + _body("ExportTx")
        + COMMON
        + _body("RewardValidatorTx"),
    ),
    (b.BanffAbortBlock(1_700_000_000, PARENT, 7), _header(30) + TIME + COMMON),
    (b.BanffCommitBlock(1_700_000_000, PARENT, 7), _header(31) + TIME + COMMON),
    (
        b.BanffStandardBlock(1_700_000_000, PARENT, 7, (_tx("ConvertSubnetToL1Tx"),)),
        _header(32) + TIME + COMMON + b"\x00\x00\x00\x01" + _body("ConvertSubnetToL1Tx"),
    ),
]


@pytest.mark.parametrize(("block", "raw"), CASES, ids=[type(c[0]).__name__ for c in CASES])
def test_block_layout_and_id(block: Block, raw: bytes) -> None:
    assert b.encode_block(block) == raw
    assert b.decode_block(raw) == block
    assert type(b.decode_block(raw)) is type(block)
    assert b.block_id(block) == ID(hashlib.sha256(raw).digest())


def test_txs_inside_blocks_keep_their_ids() -> None:
    block = b.decode_block(CASES[3][1])
    assert isinstance(block, b.ApricotStandardBlock)
    assert [tx.id for tx in block.txs] == [_tx("BaseTx").id, _tx("CreateSubnetTx").id]


def test_abort_and_commit_differ() -> None:
    assert b.ApricotAbortBlock(PARENT, 1) != b.ApricotCommitBlock(PARENT, 1)
    assert b.block_id(b.BanffAbortBlock(0, PARENT, 1)) != b.block_id(
        b.BanffCommitBlock(0, PARENT, 1)
    )


def test_blocks_ride_in_proposervm_wrappers() -> None:
    inner = b.encode_block(CASES[8][0])
    wrapper = StatelessBlock(
        parent_id=PARENT, inner_block=inner, timestamp=1_700_000_000, p_chain_height=3
    )
    assert b.decode_block(parse(wrapper.encode()).inner_block) == CASES[8][0]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (CASES[1][1][:-1], "insufficient length"),
        (CASES[1][1] + b"\x00", "trailing buffer space"),
        (b"\x00\x01" + CASES[1][1][2:], "unknown codec version"),
        (_header(33) + COMMON, r"\(TransferSubnetOwnershipTx\) is not a Block"),
        (_header(6) + COMMON, "unknown platformvm type id 6"),
        (CASES[3][1][:46] + b"\xff\xff\xff\xff" + CASES[3][1][50:], "insufficient length"),
        (bytes(256 * 1024 + 1), "exceeds maximum length"),
    ],
)
def test_malformed_blocks_are_rejected(raw: bytes, message: str) -> None:
    with pytest.raises(InvalidParams, match=message):
        b.decode_block(raw)


def test_truncated_blocks_are_rejected() -> None:
    raw = CASES[5][1]
    for end in range(len(raw)):
        with pytest.raises(InvalidParams):
            b.decode_block(raw[:end])


SMALL_TXS = st.sampled_from(sorted(TXS)).filter(lambda n: "AutoRenewed" not in n).map(_tx)
TX_LISTS = st.lists(SMALL_TXS, max_size=3).map(tuple)
BLOCKS = st.one_of(
    st.builds(b.ApricotProposalBlock, ps.IDS, ps.U64, SMALL_TXS),
    st.builds(b.ApricotAbortBlock, ps.IDS, ps.U64),
    st.builds(b.ApricotCommitBlock, ps.IDS, ps.U64),
    st.builds(b.ApricotStandardBlock, ps.IDS, ps.U64, TX_LISTS),
    st.builds(b.ApricotAtomicBlock, ps.IDS, ps.U64, SMALL_TXS),
    st.builds(b.BanffProposalBlock, ps.U64, TX_LISTS, ps.IDS, ps.U64, SMALL_TXS),
    st.builds(b.BanffAbortBlock, ps.U64, ps.IDS, ps.U64),
    st.builds(b.BanffCommitBlock, ps.U64, ps.IDS, ps.U64),
    st.builds(b.BanffStandardBlock, ps.U64, ps.IDS, ps.U64, TX_LISTS),
)


@settings(max_examples=60, deadline=None)
@given(BLOCKS)
def test_every_block_type_round_trips(block: Block) -> None:
    raw = b.encode_block(block)
    assert b.decode_block(raw) == block
    assert b.block_id(block) == ID(hashlib.sha256(raw).digest())
