"""Go time text: RFC 3339 with nanoseconds."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.timefmt import (
    ZERO_TIME_NS,
    format_rfc3339,
    parse_rfc3339,
)

# Unix nanoseconds from 0001-01-01 to 9999-12-31T23:59:59.999999999, Go's JSON-marshalable range.
TIMES = st.integers(ZERO_TIME_NS, 253_402_300_799_999_999_999)
OFFSETS = st.integers(-(24 * 60 - 1), 24 * 60 - 1).map(lambda minutes: minutes * 60)


@pytest.mark.parametrize(
    ("unix_ns", "offset", "text"),
    [
        # The index API example (§1); 1635986575 s is 2021-11-04T00:42:55Z.
        (1_635_986_575_016_434_140, 0, "2021-11-04T00:42:55.01643414Z"),
        (1_636_000_975_016_434_140, 0, "2021-11-04T04:42:55.01643414Z"),
        (1_636_000_975_016_434_140, -4 * 3600, "2021-11-04T00:42:55.01643414-04:00"),
        # The index API example in a -07:00 zone.
        (1_617_402_840_262_979_000, -7 * 3600, "2021-04-02T15:34:00.262979-07:00"),
        (0, 0, "1970-01-01T00:00:00Z"),
        (1, 0, "1970-01-01T00:00:00.000000001Z"),
        (1_500_000_000, 0, "1970-01-01T00:00:01.5Z"),
        (-1, 0, "1969-12-31T23:59:59.999999999Z"),
        (ZERO_TIME_NS, 0, "0001-01-01T00:00:00Z"),
        (0, 5 * 3600 + 30 * 60, "1970-01-01T05:30:00+05:30"),
    ],
)
def test_rfc3339_vectors(unix_ns: int, offset: int, text: str) -> None:
    assert format_rfc3339(unix_ns, utc_offset_seconds=offset) == text
    assert parse_rfc3339(text) == unix_ns


@given(TIMES)
def test_rfc3339_matches_datetime_for_whole_microseconds(unix_ns: int) -> None:
    unix_ns -= unix_ns % 1000
    expected = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=unix_ns // 1000)
    text = format_rfc3339(unix_ns)
    assert dt.datetime.fromisoformat(text) == expected


@given(TIMES, OFFSETS)
def test_rfc3339_round_trip(unix_ns: int, offset: int) -> None:
    try:
        text = format_rfc3339(unix_ns, utc_offset_seconds=offset)
    except InvalidParams:
        return  # the offset pushed the local date outside years 1-9999
    assert parse_rfc3339(text) == unix_ns
    fraction = text[19:].split("Z")[0].split("+")[0].split("-")[0]
    # Trailing zeros are trimmed and a zero fraction disappears entirely.
    assert fraction == "" or (len(fraction) > 1 and not fraction.endswith("0"))


@pytest.mark.parametrize(
    "text",
    [
        "2021-11-04 00:42:55Z",
        "2021-11-04T00:42:55",
        "2021-11-04T00:42:55.Z",
        "2021-11-04T00:42:55.0123456789Z",
        "2021-02-30T00:00:00Z",
        "2021-11-04T24:00:00Z",
        "2021-11-04T00:42:55+24:00",
        "2021-11-04T00:42:55z",
        "",
    ],
)
def test_parse_rfc3339_rejects(text: str) -> None:
    with pytest.raises(InvalidParams):
        parse_rfc3339(text)


def test_format_rfc3339_rejects_odd_offsets_and_range() -> None:
    with pytest.raises(InvalidParams):
        format_rfc3339(0, utc_offset_seconds=30)
    with pytest.raises(InvalidParams):
        format_rfc3339(ZERO_TIME_NS - 1)
