"""Linear codec primitives: exact byte layouts, round-trips, and the unpacker's refusals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.codec import DEFAULT_MAX_SIZE, Packer, Unpacker

U64 = st.integers(0, 2**64 - 1)
I64 = st.integers(-(2**63), 2**63 - 1)


def test_layout_of_every_primitive() -> None:
    packed = (
        Packer()
        .u16(0)
        .u8(0xAB)
        .u16(0x0102)
        .u32(0x01020304)
        .u64(0x0102030405060708)
        .i64(-2)
        .boolean(True)
        .boolean(False)
        .fixed(b"\xee\xff")
        .var_bytes(b"xy")
        .string("hé")
        .items([1, 2], Packer.u16)
        .to_bytes()
    )
    assert packed.hex() == (
        "0000"
        "ab"
        "0102"
        "01020304"
        "0102030405060708"
        "fffffffffffffffe"
        "01"
        "00"
        "eeff"
        "00000002" "7879"
        "0003" "68c3a9"
        "00000002" "0001" "0002"
    )  # fmt: skip
    reader = Unpacker(packed)
    assert reader.version() == 0
    assert reader.u8() == 0xAB
    assert reader.u16() == 0x0102
    assert reader.u32() == 0x01020304
    assert reader.u64() == 0x0102030405060708
    assert reader.i64() == -2
    assert reader.boolean() is True
    assert reader.boolean() is False
    assert reader.fixed(2) == b"\xee\xff"
    assert reader.var_bytes() == b"xy"
    assert reader.string() == "hé"
    assert reader.items(Unpacker.u16) == [1, 2]
    assert reader.remaining == 0
    reader.finish()


@given(
    st.integers(0, 255),
    st.integers(0, 2**16 - 1),
    st.integers(0, 2**32 - 1),
    U64,
    I64,
    st.booleans(),
    st.binary(max_size=64),
    st.text(max_size=40),
    st.lists(U64, max_size=8),
    st.lists(st.binary(max_size=8), max_size=5),
)
def test_round_trip(
    a: int,
    b: int,
    c: int,
    d: int,
    e: int,
    f: bool,
    g: bytes,
    h: str,
    i: list[int],
    j: list[bytes],
) -> None:
    packer = Packer().u8(a).u16(b).u32(c).u64(d).i64(e).boolean(f).var_bytes(g).string(h)
    packer.items(i, Packer.u64).items(j, Packer.var_bytes)
    reader = Unpacker(packer.to_bytes())
    assert (reader.u8(), reader.u16(), reader.u32(), reader.u64(), reader.i64()) == (a, b, c, d, e)
    assert (reader.boolean(), reader.var_bytes(), reader.string()) == (f, g, h)
    assert reader.items(Unpacker.u64) == i
    assert reader.items(Unpacker.var_bytes, min_item_size=4) == j
    reader.finish()


@given(st.binary(max_size=40), st.integers(1, 8))
def test_any_truncation_is_refused(payload: bytes, cut: int) -> None:
    data = Packer().var_bytes(payload).u32(7).to_bytes()
    reader = Unpacker(data[: max(0, len(data) - cut)])
    with pytest.raises(InvalidParams, match="packer has insufficient length for input"):
        reader.var_bytes()
        reader.u32()


def _message(exc: pytest.ExceptionInfo[InvalidParams]) -> str:
    return exc.value.message


def test_trailing_bytes() -> None:
    reader = Unpacker(b"\x00\x01\x02")
    reader.u16()
    with pytest.raises(InvalidParams) as raised:
        reader.finish()
    assert _message(raised) == "trailing buffer space: read 2 provided 3"


@pytest.mark.parametrize("value", [2, 255])
def test_invalid_bool(value: int) -> None:
    with pytest.raises(InvalidParams) as raised:
        Unpacker(bytes([value])).boolean()
    assert _message(raised) == "unexpected value when unpacking bool"


def test_short_reads() -> None:
    for read in (Unpacker.u16, Unpacker.u32, Unpacker.u64, Unpacker.i64, Unpacker.var_bytes):
        with pytest.raises(InvalidParams, match="insufficient length"):
            read(Unpacker(b"\x00"))
    with pytest.raises(InvalidParams, match="insufficient length"):
        Unpacker(b"").u8()
    with pytest.raises(InvalidParams, match="insufficient length"):
        Unpacker(b"\x00\x00\x00\x05abc").var_bytes()
    with pytest.raises(InvalidParams, match="insufficient length"):
        Unpacker(b"\x00\x03ab").string()


def test_forged_list_count_is_refused_before_looping() -> None:
    calls: list[int] = []

    def read_one(reader: Unpacker) -> int:
        calls.append(1)
        return reader.u8()

    with pytest.raises(InvalidParams, match="insufficient length"):
        Unpacker(b"\xff\xff\xff\xff\x00").items(read_one)
    assert calls == []


def test_zero_size_items_need_an_explicit_opt_in() -> None:
    assert Unpacker(b"\x00\x00\x00\x03").items(lambda _: None, min_item_size=0) == [None] * 3


def test_invalid_utf8_string() -> None:
    with pytest.raises(InvalidParams, match="UTF-8"):
        Unpacker(b"\x00\x01\xff").string()


def test_version_checks() -> None:
    with pytest.raises(InvalidParams, match="couldn't unpack codec version"):
        Unpacker(b"\x00").version()
    with pytest.raises(InvalidParams, match="unknown codec version"):
        Unpacker(b"\x00\x01").version()


def test_max_size_guard() -> None:
    Unpacker(bytes(DEFAULT_MAX_SIZE))
    with pytest.raises(InvalidParams) as raised:
        Unpacker(bytes(DEFAULT_MAX_SIZE + 1))
    assert _message(raised) == f"byte array exceeds maximum length, {DEFAULT_MAX_SIZE}"
    packer = Packer(max_size=6).u16(0)
    with pytest.raises(InvalidParams, match="exceeds the maximum of 6 bytes"):
        packer.var_bytes(b"x")
    Unpacker(bytes(10), max_size=10)


@pytest.mark.parametrize(
    ("method", "value"),
    [
        (Packer.u8, 256),
        (Packer.u8, -1),
        (Packer.u16, 2**16),
        (Packer.u32, 2**32),
        (Packer.u64, 2**64),
        (Packer.u64, -1),
        (Packer.i64, 2**63),
        (Packer.i64, -(2**63) - 1),
    ],
)
def test_out_of_range_ints(method: object, value: int) -> None:
    with pytest.raises(InvalidParams, match="out of range"):
        method(Packer(), value)  # type: ignore[operator]


def test_string_length_limit() -> None:
    Packer().string("a" * 0xFFFF)
    with pytest.raises(InvalidParams, match="exceeds 65535"):
        Packer().string("a" * 0x10000)
