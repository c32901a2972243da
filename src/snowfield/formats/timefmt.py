"""Go's time formats: RFC 3339 with nanoseconds (time.Time JSON) and time.Duration.String()."""

from __future__ import annotations

import time


def format_rfc3339_nano(ns: int) -> str:
    """UTC, up to 9 fractional digits with trailing zeros trimmed: 2021-11-04T00:42:55.01643414Z."""
    seconds, frac = divmod(ns, 1_000_000_000)
    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    if frac:
        base += "." + f"{frac:09d}".rstrip("0")
    return base + "Z"
