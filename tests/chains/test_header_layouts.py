"""Every C-Chain header layout decodes and re-encodes to its hash; bad input is InvalidParams."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
import rlp
from hypothesis import given
from hypothesis import strategies as st

from snowfield.chains.evm.model import Header
from snowfield.crypto.hashing import keccak
from snowfield.errors import InvalidParams

VECTORS = json.loads((Path(__file__).parent / "vectors" / "coreth_blocks.json").read_text())


def _header_rlp(block_hex: str) -> bytes:
    return bytes(rlp.encode(rlp.decode(bytes.fromhex(block_hex))[0]))


@pytest.mark.parametrize("vector", VECTORS["blocks"], ids=lambda v: v["layout"])
def test_coreths_historical_headers_decode_to_their_hash(vector: dict[str, Any]) -> None:
    encoded = _header_rlp(vector["block"])
    header = Header.decode(encoded)
    assert header.field_count == vector["fields"]
    assert header.encode() == encoded
    assert header.compute_hash().hex() == vector["hash"]


def test_ap4_fields_read_back() -> None:
    ap4 = Header.decode(_header_rlp(VECTORS["blocks"][2]["block"]))
    assert (ap4.base_fee, ap4.ext_data_gas_used, ap4.block_gas_cost) == (10**9, 25_000, 10**6)
    assert ap4.number == 3 and ap4.gas_used == 21_000


@pytest.mark.parametrize(
    "extra", [[0, 0, b"\x11" * 32], [0, 0, b"\x11" * 32, 1_700_000_000_123, 7]]
)
def test_cancun_and_granite_layouts_round_trip(extra: list[Any]) -> None:
    ap4 = rlp.decode(_header_rlp(VECTORS["blocks"][2]["block"]))
    encoded = bytes(rlp.encode([*ap4, *extra]))
    header = Header.decode(encoded)
    assert header.field_count == len(ap4) + len(extra)
    assert header.encode() == encoded and header.compute_hash() == keccak(encoded)
    if len(extra) == 5:
        assert (header.time_milliseconds, header.min_delay_excess) == (1_700_000_000_123, 7)


def _mutated(index: int, value: Any) -> bytes:
    items = rlp.decode(_header_rlp(VECTORS["blocks"][0]["block"]))
    items[index] = value
    return bytes(rlp.encode(items))


@pytest.mark.parametrize(
    "encoded",
    [
        b"",
        b"\x01",
        bytes(rlp.encode([b"\x00"] * 15)),
        bytes(rlp.encode([b""] * 25)),
        _mutated(0, b"\x01" * 31),
        _mutated(8, b"\x00\x01"),
        _mutated(9, b"\x01" * 9),
        _mutated(12, [b"nested"]),
    ],
)
def test_malformed_headers_raise_invalid_params(encoded: bytes) -> None:
    with pytest.raises(InvalidParams):
        Header.decode(encoded)


@given(
    st.binary(max_size=600)
    | st.lists(st.binary(max_size=40) | st.just([b""]), max_size=30).map(rlp.encode)
)
def test_any_input_decodes_or_raises_invalid_params(data: bytes) -> None:
    with contextlib.suppress(InvalidParams):
        Header.decode(bytes(data))
