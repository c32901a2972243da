"""Go's time text form: RFC 3339 with nanoseconds (time.Time JSON)."""

from __future__ import annotations

import datetime as dt
import re

from snowfield.errors import InvalidParams

NS_PER_SECOND = 1_000_000_000
_EPOCH = dt.datetime(1970, 1, 1)
# Go's zero time.Time, printed 0001-01-01T00:00:00Z (e.g. by a health check that has not yet run).
ZERO_TIME_NS = -62_135_596_800 * NS_PER_SECOND

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})"
)


def format_rfc3339(unix_ns: int, *, utc_offset_seconds: int = 0) -> str:
    """Go's time.Time JSON form: up to 9 fraction digits, trailing zeros trimmed, `Z` when UTC.

    e.g. 1636000975016434140 → `2021-11-04T00:42:55.01643414Z`; the offset shows local zones.
    """
    if utc_offset_seconds % 60 or abs(utc_offset_seconds) >= 24 * 3600:
        raise InvalidParams("utc offset must be whole minutes within a day")
    seconds, nanos = divmod(unix_ns, NS_PER_SECOND)
    try:
        local = _EPOCH + dt.timedelta(seconds=seconds + utc_offset_seconds)
    except OverflowError:
        raise InvalidParams("time out of range for RFC 3339 (years 1-9999)") from None
    text = (
        f"{local.year:04d}-{local.month:02d}-{local.day:02d}"
        f"T{local.hour:02d}:{local.minute:02d}:{local.second:02d}"
    )
    if nanos:
        text += "." + f"{nanos:09d}".rstrip("0")
    return text + _zone(utc_offset_seconds)


def _zone(offset_seconds: int) -> str:
    if offset_seconds == 0:
        return "Z"
    sign = "-" if offset_seconds < 0 else "+"
    hours, minutes = divmod(abs(offset_seconds) // 60, 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def parse_rfc3339(text: str) -> int:
    """Unix nanoseconds of an RFC 3339 time with optional fraction (inverse of format_rfc3339)."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise InvalidParams(f"invalid RFC 3339 time {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction, zone = match.group(7) or "", match.group(8)
    try:
        local = dt.datetime(year, month, day, hour, minute, second)
    except ValueError:
        raise InvalidParams(f"invalid RFC 3339 time {text!r}") from None
    offset = 0
    if zone != "Z":
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 23 or minutes > 59:
            raise InvalidParams(f"invalid RFC 3339 time zone {zone!r}")
        offset = (hours * 60 + minutes) * 60 * (-1 if zone[0] == "-" else 1)
    delta = local - _EPOCH
    seconds = delta.days * 86_400 + delta.seconds - offset
    return seconds * NS_PER_SECOND + int(fraction.ljust(9, "0"))
