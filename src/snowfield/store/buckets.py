"""Time buckets of the metrics rollups: hour, day, week (from Monday) and month starts, in UTC."""

from __future__ import annotations

import datetime as dt
from typing import Literal

Interval = Literal["hour", "day", "week", "month"]
INTERVALS: tuple[Interval, ...] = ("hour", "day", "week", "month")
HOUR = 3600
DAY = 86400
WEEK = 7 * DAY
# 1970-01-01 was a Thursday: Monday 1970-01-05 00:00 UTC is a week start, 4 days after epoch.
_MONDAY = 4 * DAY


def bucket_start(interval: Interval, ts: int) -> int:
    """The start of the bucket of `interval` that holds the Unix time `ts`."""
    if interval == "hour":
        return ts - ts % HOUR
    if interval == "day":
        return ts - ts % DAY
    if interval == "week":
        return ts - (ts - _MONDAY) % WEEK
    day = dt.datetime.fromtimestamp(ts - ts % DAY, dt.UTC)
    return int(dt.datetime(day.year, day.month, 1, tzinfo=dt.UTC).timestamp())


def previous_start(interval: Interval, start: int) -> int:
    """The start of the bucket before the one starting at `start`."""
    return bucket_start(interval, start - 1)


def starts_down(interval: Interval, high: int, low: int, limit: int) -> list[int]:
    """Bucket starts from `high` down to `low` (both bucket starts), newest first, at most
    `limit` of them."""
    out: list[int] = []
    start = high
    while start >= low and len(out) < limit:
        out.append(start)
        start = previous_start(interval, start)
    return out
