"""Every P-Chain and Warp decoder fails on arbitrary or corrupted bytes with InvalidParams only."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.platform.blocks import decode_block
from snowfield.formats.platform.components import UTXO
from snowfield.formats.platform.txs import Tx, decode_unsigned
from snowfield.formats.warp.message import Message, UnsignedMessage
from snowfield.formats.warp.payload import decode_payload
from snowfield.formats.warp.platform_messages import SubnetToL1ConversionData, decode_message

VECTORS = Path(__file__).parent / "vectors"
FUJI = json.loads((VECTORS / "avalanchejs" / "warp_messages.json").read_text())
SEEDS = [bytes.fromhex(m["signed_message"]) for m in FUJI.values()] + [
    bytes.fromhex(c["tx"])
    for c in json.loads((VECTORS / "avalanchego" / "fee_calculator_txs.json").read_text())["txs"]
]
DECODERS: list[Callable[[bytes], object]] = [
    Tx.decode,
    decode_unsigned,
    decode_block,
    UTXO.decode,
    Message.decode,
    UnsignedMessage.decode,
    decode_payload,
    decode_message,
    SubnetToL1ConversionData.decode,
]
NAMES = [getattr(d, "__qualname__", str(d)) for d in DECODERS]


def _codec_message(body: bytes) -> bytes:
    return b"\x00\x00" + body


@pytest.mark.parametrize("decode", DECODERS, ids=NAMES)
@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300).map(_codec_message))
def test_arbitrary_bytes(decode: Callable[[bytes], object], data: bytes) -> None:
    with contextlib.suppress(InvalidParams):
        decode(data)


@pytest.mark.parametrize("decode", DECODERS, ids=NAMES)
@settings(max_examples=100, deadline=None)
@given(st.sampled_from(SEEDS), st.data())
def test_corrupted_real_messages(
    decode: Callable[[bytes], object], seed: bytes, data: st.DataObject
) -> None:
    raw = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 3))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    with contextlib.suppress(InvalidParams):
        decode(bytes(raw[:cut]))
