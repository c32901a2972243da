"""bech32 (BIP-173 vectors) and Avalanche addresses (the well-known local key on four networks)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.bech32 import (
    convert_bits,
    decode_bech32,
    encode_bech32,
    format_address,
    format_bech32,
    hrp_for_network,
    parse_address,
    parse_bech32,
)
from snowfield.formats.ids import ShortID

# The well-known ewoq test key, PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN.
EWOQ_SECRET = bytes.fromhex("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
EWOQ_SHORT_ID = bytes.fromhex("3cb7d3842e8cee6a0ebd09f1fe884f6861e1b29c")

BIP173_VALID = [
    "A12UEL5L",
    "a12uel5l",
    "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
    "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
    "11" + "q" * 82 + "c8247j",
    "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
    "?1ezyfcl",
]

BIP173_INVALID = [
    "\x201nwldj5",  # HRP character out of range
    "\x7f1axkwrx",
    "\x801eym55h",
    "an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx",
    "pzry9x0s0muk",  # no separator
    "1pzry9x0s0muk",  # empty HRP
    "x1b4n0q5v",  # invalid data character
    "li1dgmt3",  # checksum too short
    "de1lg7wt\xff",  # invalid character in checksum
    "A1G7SGD8",  # checksum computed over the upper-case HRP
    "10a06t8",  # empty HRP
    "1qzzfhee",  # empty HRP
    "a12UEL5L",  # mixed case
]


@pytest.mark.parametrize("text", BIP173_VALID)
def test_bip173_valid(text: str) -> None:
    hrp, data = decode_bech32(text)
    assert encode_bech32(hrp, data) == text.lower()


@pytest.mark.parametrize("text", BIP173_INVALID)
def test_bip173_invalid(text: str) -> None:
    with pytest.raises(InvalidParams):
        decode_bech32(text)


def test_bip173_segwit_program_converts() -> None:
    hrp, data = decode_bech32("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4")
    assert (hrp, data[0]) == ("bc", 0)
    program = bytes(convert_bits(data[1:], 5, 8, pad=False))
    assert program.hex() == "751e76e8199196d454941c45d1b3a323f1433bd6"


@pytest.mark.parametrize(
    ("chain", "hrp", "address"),
    [
        ("X", "local", "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"),
        ("X", "avax", "X-avax18jma8ppw3nhx5r4ap8clazz0dps7rv5ukulre5"),
        ("P", "fuji", "P-fuji18jma8ppw3nhx5r4ap8clazz0dps7rv5u6wmu4t"),
        ("X", "custom", "X-custom18jma8ppw3nhx5r4ap8clazz0dps7rv5u9xde7p"),
    ],
)
def test_well_known_key_addresses(chain: str, hrp: str, address: str) -> None:
    assert format_address(chain, hrp, EWOQ_SHORT_ID) == address
    parsed = parse_address(address)
    assert (parsed.chain_alias, parsed.hrp, parsed.payload) == (chain, hrp, EWOQ_SHORT_ID)
    assert parsed.short_id == ShortID(EWOQ_SHORT_ID)
    assert str(parsed) == address


def test_private_key_to_local_address() -> None:
    # coincurve is used only here, to get the public key; formats itself needs no secp256k1.
    coincurve = pytest.importorskip("coincurve")
    secret = EWOQ_SECRET
    public = coincurve.PrivateKey(secret).public_key.format(compressed=True)
    address = format_address("X", "local", ShortID.from_public_key(public).raw)
    assert address == "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


@pytest.mark.parametrize(
    ("network_id", "hrp"),
    [
        (1, "avax"),
        (2, "cascade"),
        (3, "denali"),
        (4, "everest"),
        (5, "fuji"),
        (10, "testing"),
        (12345, "local"),
        (0, "custom"),
        (6, "custom"),
        (1337, "custom"),
        (43114, "custom"),
    ],
)
def test_hrp_for_network(network_id: int, hrp: str) -> None:
    assert hrp_for_network(network_id) == hrp


HRPS = st.sampled_from(["avax", "fuji", "local", "custom", "testing"])
ALIASES = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="-"),
    max_size=12,
)


@given(ALIASES, HRPS, st.binary(min_size=20, max_size=20))
def test_address_round_trip(alias: str, hrp: str, payload: bytes) -> None:
    parsed = parse_address(format_address(alias, hrp, payload))
    assert (parsed.chain_alias, parsed.hrp, parsed.payload) == (alias, hrp, payload)


@given(HRPS, st.binary(max_size=40))
def test_bech32_payload_round_trip(hrp: str, payload: bytes) -> None:
    assert parse_bech32(format_bech32(hrp, payload)) == (hrp, payload)


@given(st.binary(max_size=64))
def test_convert_bits_round_trip(payload: bytes) -> None:
    five = convert_bits(payload, 8, 5, pad=True)
    assert all(0 <= v < 32 for v in five)
    assert bytes(convert_bits(five, 5, 8, pad=False)) == payload


@given(HRPS, st.binary(min_size=20, max_size=20), st.data())
def test_single_character_change_is_detected(hrp: str, payload: bytes, data: st.DataObject) -> None:
    text = format_bech32(hrp, payload)
    index = data.draw(st.integers(len(hrp) + 1, len(text) - 1))
    replacement = data.draw(st.sampled_from("qpzry9x8gf2tvdw0s3jn54khce6mua7l"))
    if replacement != text[index]:
        # bech32 detects every error affecting up to 4 characters.
        with pytest.raises(InvalidParams, match="checksum"):
            parse_bech32(text[:index] + replacement + text[index + 1 :])


def test_address_errors() -> None:
    with pytest.raises(InvalidParams, match="no separator found in address"):
        parse_address("local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u")
    with pytest.raises(InvalidParams, match="checksum"):
        parse_address("X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96v")
    with pytest.raises(InvalidParams, match="must not contain"):
        format_address("X-1", "local", EWOQ_SHORT_ID)
    with pytest.raises(InvalidParams, match="expected 20 bytes but got 4"):
        _ = parse_address(format_address("X", "local", b"abcd")).short_id


def test_non_zero_padding_is_refused() -> None:
    with pytest.raises(InvalidParams, match="padding"):
        convert_bits([31], 5, 8, pad=False)


@given(HRPS, st.lists(st.integers(0, 31), max_size=40))
def test_parse_regroups_as_convert_bits_does(hrp: str, data: list[int]) -> None:
    """parse_bech32 regroups 5-bit values by its own route (an int parse): same bytes, and the
    same refusal of bad padding."""
    text = encode_bech32(hrp, data)
    try:
        expected: bytes | None = bytes(convert_bits(data, 5, 8, pad=False))
    except InvalidParams:
        expected = None
    if expected is None:
        with pytest.raises(InvalidParams, match="padding"):
            parse_bech32(text)
    else:
        assert parse_bech32(text) == (hrp, expected)


@pytest.mark.parametrize("char", [" ", "\x7f", "\x1f", "é"])
def test_characters_outside_33_to_126_are_refused(char: str) -> None:
    text = "local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
    with pytest.raises(InvalidParams, match="invalid character"):
        decode_bech32(text[:10] + char + text[11:])
