"""A chain metric over rolling windows up to now (the metrics service's rollingWindowMetrics),
read from the rollup tables: every window is the union of whole buckets, from the one holding
now - length on, so it equals the metric over the blocks from that bucket's start."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snowfield.store.buckets import DAY, HOUR, Interval, bucket_start
from snowfield.store.database import Database
from snowfield.store.rollups import COLUMNS
from snowfield.store.sql import in_list

Value = int | float
MAX_INT = 2**63 - 1
METRICS = (
    "gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice",
    "feesPaid", "contracts", "deployers", "activeAddresses", "activeSenders",
)  # fmt: skip
# Metrics whose rollups hold hour buckets (members included): their short windows are read in
# hours; the others (deployers are kept per day only) in days.
_HOURLY = frozenset({"activeAddresses", "activeSenders", "gasUsed", "txCount"})
WINDOWS: tuple[tuple[str, int | None], ...] = (
    ("lastHour", HOUR),
    ("lastDay", DAY),
    ("lastWeek", 7 * DAY),
    ("lastMonth", 30 * DAY),
    ("last90Days", 90 * DAY),
    ("lastYear", 365 * DAY),
    ("allTime", None),
)
_DISTINCT = {"activeAddresses": "address", "activeSenders": "sender", "deployers": "deployer"}
_SUMS = {"gasUsed": "gas_used", "txCount": "txs", "feesPaid": "fees", "contracts": "contracts"}


def window_span(metric: str, length: int | None) -> Interval:
    """The buckets a window of `length` seconds (None: all time) is read from."""
    if length is not None and length <= DAY and metric in _HOURLY:
        return "hour"
    return "day"


def window_start(metric: str, length: int | None, now: int) -> int | None:
    """The first instant a window covers (None: from genesis)."""
    if length is None:
        return None
    return bucket_start(window_span(metric, length), now - length)


def _rows(
    db: Database, chains: Sequence[int], span: Interval, low: int | None
) -> list[dict[str, Any]]:
    since = "" if low is None else " AND bucket >= ?"
    found = db.query(
        f"SELECT {', '.join(COLUMNS)} FROM rollups WHERE chain_id IN {in_list(chains)}"
        f" AND span = ?{since} ORDER BY chain_id, bucket",
        (*chains, span, *(() if low is None else (low,))),
    )
    return [
        {c: None if v is None else int(v) for c, v in zip(COLUMNS, r, strict=True)} for r in found
    ]


def _per_chain_rows(
    db: Database, chains: Sequence[int], span: Interval, low: int | None
) -> list[list[dict[str, Any]]]:
    return [_rows(db, [c], span, low) for c in chains]


def _avg(db: Database, chains: Sequence[int], span: Interval, low: int | None, col: str) -> float:
    """Per chain: the amount over the time from the last block before the window (else its
    first block) to its last block, at least 1 s; across chains the rates add."""
    total = 0.0
    for rows in _per_chain_rows(db, chains, span, low):
        if not rows:
            continue
        first = rows[0]["first_ts"] if rows[0]["prev_ts"] is None else rows[0]["prev_ts"]
        last = max(int(r["last_ts"] or 0) for r in rows)
        total += sum(int(r[col] or 0) for r in rows) / max(1, last - int(first or 0))
    return total


def _number(value: int) -> Value:
    return value if value <= MAX_INT else float(value)


def value(db: Database, chains: Sequence[int], metric: str, length: int | None, now: int) -> Value:
    """`metric` over the window of `length` seconds up to `now` (None: all time)."""
    span = window_span(metric, length)
    low = window_start(metric, length, now)
    if metric in _DISTINCT:
        since = "" if low is None else " AND bucket >= ?"
        row = db.query_one(
            f"SELECT COUNT(DISTINCT member) FROM rollup_members WHERE chain_id IN"
            f" {in_list(chains)} AND kind = ? AND span = ?{since}",
            (*chains, _DISTINCT[metric], span, *(() if low is None else (low,))),
        )
        return 0 if row is None else int(row[0])
    if metric in ("avgTps", "avgGps"):
        return _avg(db, chains, span, low, "txs" if metric == "avgTps" else "block_gas")
    rows = _rows(db, chains, span, low)
    if metric in _SUMS:
        return _number(sum(int(r[_SUMS[metric]] or 0) for r in rows))
    if metric in ("maxTps", "maxGps"):
        num, den = ("tps_num", "tps_den") if metric == "maxTps" else ("gps_num", "gps_den")
        return max((int(r[num] or 0) / int(r[den] or 1) for r in rows), default=0.0)
    if metric == "avgGasPrice":
        txs = sum(int(r["txs"] or 0) for r in rows)
        return sum(int(r["price_sum"] or 0) for r in rows) / txs if txs else 0.0
    if metric == "maxGasPrice":
        return _number(max((int(r["price_max"] or 0) for r in rows), default=0))
    raise AssertionError(metric)


def windows(db: Database, chains: Sequence[int], metric: str, now: int) -> dict[str, Value]:
    """Every rolling window of `metric` over `chains` (their union for distinct counts)."""
    if not chains:
        return {name: 0 for name, _ in WINDOWS}
    return {name: value(db, chains, metric, length, now) for name, length in WINDOWS}
