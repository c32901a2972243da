"""Bucket starts: weeks start on Mondays, months on the 1st, and every time lies in its bucket."""

from __future__ import annotations

import datetime as dt
import itertools

from hypothesis import given
from hypothesis import strategies as st

from snowfield.store.buckets import DAY, HOUR, INTERVALS, WEEK, Interval, bucket_start, starts_down

TIMES = st.integers(min_value=0, max_value=4_102_444_800)  # 1970 .. 2100
SPANS = st.sampled_from(INTERVALS)


def utc(ts: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, dt.UTC)


def next_start(interval: Interval, start: int) -> int:
    """The start of the bucket after the one starting at `start`: where each bucket ends."""
    if interval == "hour":
        return start + HOUR
    if interval == "day":
        return start + DAY
    if interval == "week":
        return start + WEEK
    day = dt.datetime.fromtimestamp(start, dt.UTC)
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    return int(dt.datetime(year, month, 1, tzinfo=dt.UTC).timestamp())


@given(TIMES, SPANS)
def test_every_time_lies_in_its_bucket(ts: int, span: Interval) -> None:
    start = bucket_start(span, ts)
    assert start <= ts < next_start(span, start)
    assert bucket_start(span, start) == start
    assert bucket_start(span, next_start(span, start)) == next_start(span, start)


@given(TIMES)
def test_week_starts_are_mondays_at_midnight(ts: int) -> None:
    start = utc(bucket_start("week", ts))
    assert start.weekday() == 0 and (start.hour, start.minute, start.second) == (0, 0, 0)
    assert ts - bucket_start("week", ts) < 7 * 86400


@given(TIMES)
def test_month_starts_are_the_first_at_midnight(ts: int) -> None:
    start, moment = utc(bucket_start("month", ts)), utc(ts)
    assert (start.year, start.month, start.day, start.hour) == (moment.year, moment.month, 1, 0)
    following = utc(next_start("month", bucket_start("month", ts)))
    assert following.day == 1 and (following.month - start.month) % 12 == 1


@given(TIMES)
def test_hours_and_days(ts: int) -> None:
    assert utc(bucket_start("hour", ts)) == utc(ts).replace(minute=0, second=0)
    assert utc(bucket_start("day", ts)) == utc(ts).replace(hour=0, minute=0, second=0)


@given(TIMES, TIMES, SPANS, st.integers(min_value=1, max_value=50))
def test_starts_down_walks_consecutive_buckets(a: int, b: int, span: Interval, n: int) -> None:
    low, high = bucket_start(span, min(a, b)), bucket_start(span, max(a, b))
    starts = starts_down(span, high, low, n)
    assert starts[0] == high and all(s >= low for s in starts) and len(starts) <= n
    assert all(next_start(span, s) == t for t, s in itertools.pairwise(starts))
    assert len(starts) == n or starts[-1] == low


def test_known_dates() -> None:
    thursday = int(dt.datetime(2026, 1, 1, 13, 5, tzinfo=dt.UTC).timestamp())
    assert utc(bucket_start("week", thursday)) == dt.datetime(2025, 12, 29, tzinfo=dt.UTC)
    assert utc(bucket_start("month", thursday)) == dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert bucket_start("week", 0) == -3 * 86400  # 1970-01-01 was a Thursday
