"""Reading metrics series from the rollups: one chain or a union of chains, newest bucket first,
empty buckets filled, every page read from one consistent state of the rollup tables."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.errors import Unavailable
from snowfield.store.buckets import Interval, bucket_start, previous_start, starts_down
from snowfield.store.database import Database
from snowfield.store.rollups import COLUMNS, TEXT_COLUMNS

Value = int | float
Point = tuple[int, Value]  # (bucket start, value)
MAX_INT = 2**63 - 1
_ATTEMPTS = 20  # reads retried while the indexer keeps committing between our statements


@dataclass(frozen=True, slots=True)
class Series:
    points: list[Point]  # newest first
    more: bool  # older buckets remain in range


def _number(value: int) -> Value:
    """Integers leave as JSON integers while they fit in 64 bits, else as floats."""
    return value if value <= MAX_INT else float(value)


def chain_networks(db: Database) -> dict[int, str]:
    """Every chain the metrics know: configured chains, and chains with rollups but no
    configuration row (counted as `local`)."""
    found = {
        int(r[0]): str(r[1])
        for r in db.query("SELECT chain_id, network FROM chains WHERE chain_id IS NOT NULL")
    }
    for (chain_id,) in db.query("SELECT chain_id FROM rollup_runs"):
        found.setdefault(int(chain_id), "local")
    return found


def last_run(db: Database, chains: Sequence[int]) -> int:
    """Unix time of the last rollup change of any of `chains` (0 before the first)."""
    if not chains:
        return 0
    row = db.query_one(
        f"SELECT MAX(last_run) FROM rollup_runs WHERE chain_id IN ({_marks(chains)})", chains
    )
    return 0 if row is None or row[0] is None else int(row[0])


def _marks(items: Sequence[Any]) -> str:
    return ", ".join("?" * len(items))


def _versions(db: Database, chains: Sequence[int]) -> list[tuple[Any, ...]]:
    return db.query(
        f"SELECT chain_id, version FROM rollup_runs WHERE chain_id IN ({_marks(chains)})"
        " ORDER BY chain_id",
        chains,
    )


def series(
    db: Database,
    chains: Sequence[int],
    metric: str,
    span: Interval,
    *,
    start: int | None,
    end: int | None,
    below: int | None,
    limit: int,
) -> Series:
    """The page of `metric` over buckets that overlap [start, end] and start before `below`.

    Statements run one by one while the indexer may commit; the page counts only if the
    rollup versions read before and after are equal (else it is read again)."""
    if not chains:
        return Series([], False)
    for _ in range(_ATTEMPTS):
        before = _versions(db, chains)
        page = _read(db, chains, metric, span, start, end, below, limit)
        if _versions(db, chains) == before:
            return page
    raise Unavailable("the rollups kept changing while they were read; try again")


def _read(
    db: Database,
    chains: Sequence[int],
    metric: str,
    span: Interval,
    start: int | None,
    end: int | None,
    below: int | None,
    limit: int,
) -> Series:
    row = db.query_one(
        f"SELECT MIN(bucket), MAX(bucket) FROM rollups WHERE chain_id IN ({_marks(chains)})"
        " AND span = ?",
        (*chains, span),
    )
    if row is None or row[0] is None:
        return Series([], False)
    low, high = int(row[0]), int(row[1])
    if start is not None:
        low = max(low, bucket_start(span, start))
    if end is not None:
        high = min(high, bucket_start(span, end))
    if below is not None:
        high = min(high, previous_start(span, below))
    starts = starts_down(span, high, low, limit + 1)
    page = starts[:limit]
    if not page:
        return Series([], False)
    values = METRICS[metric](_Window(db, list(chains), span, page[-1], page[0]), page)
    return Series([(b, values[b]) for b in page], len(starts) > limit)


@dataclass(frozen=True, slots=True)
class _Window:
    """The chains and the bucket range [low, high] one page reads."""

    db: Database
    chains: list[int]
    span: Interval
    low: int
    high: int

    def rows(self) -> dict[int, list[dict[str, int | None]]]:
        """Per bucket, the rollup row of each chain that has one."""
        out: dict[int, list[dict[str, int | None]]] = {}
        for r in self.db.query(
            f"SELECT bucket, {', '.join(COLUMNS)} FROM rollups WHERE chain_id IN"
            f" ({_marks(self.chains)}) AND span = ? AND bucket BETWEEN ? AND ?",
            (*self.chains, self.span, self.low, self.high),
        ):
            decoded = {
                c: None if v is None else int(v) for c, v in zip(COLUMNS, r[1:], strict=True)
            }
            out.setdefault(int(r[0]), []).append(decoded)
        return out

    def before(self, column: str, strict_high: int) -> int:
        """Sum of an integer column over buckets before `strict_high`."""
        assert column not in TEXT_COLUMNS
        row = self.db.query_one(
            f"SELECT SUM({column}) FROM rollups WHERE chain_id IN ({_marks(self.chains)})"
            " AND span = ? AND bucket < ?",
            (*self.chains, self.span, strict_high),
        )
        return 0 if row is None or row[0] is None else int(row[0])

    def union_counts(self, kind: str) -> dict[int, int]:
        """Distinct members per bucket across the chains (a union, not a sum)."""
        rows = self.db.query(
            f"SELECT bucket, COUNT(DISTINCT member) FROM rollup_members WHERE chain_id IN"
            f" ({_marks(self.chains)}) AND kind = ? AND span = ? AND bucket BETWEEN ? AND ?"
            " GROUP BY bucket",
            (*self.chains, kind, self.span, self.low, self.high),
        )
        return {int(b): int(n) for b, n in rows}

    def union_firsts(self, kind: str) -> tuple[int, dict[int, int]]:
        """Members first seen on any of the chains before the window, and per day in it."""
        firsts = (
            f"SELECT member, MIN(day) AS first FROM rollup_first_seen WHERE chain_id IN"
            f" ({_marks(self.chains)}) AND kind = ? GROUP BY member"
        )
        before = self.db.query_one(
            f"SELECT COUNT(*) FROM ({firsts}) f WHERE f.first < ?", (*self.chains, kind, self.low)
        )
        rows = self.db.query(
            f"SELECT f.first, COUNT(*) FROM ({firsts}) f WHERE f.first BETWEEN ? AND ?"
            " GROUP BY f.first",
            (*self.chains, kind, self.low, self.high),
        )
        return (0 if before is None else int(before[0])), {int(d): int(n) for d, n in rows}


Rows = list[dict[str, int | None]]
MetricFn = Callable[[_Window, list[int]], dict[int, Value]]


def _per_bucket(combine: Callable[[Rows], Value]) -> MetricFn:
    """A metric computed from each bucket's rows alone (an empty bucket is no rows)."""

    def read(window: _Window, page: list[int]) -> dict[int, Value]:
        rows = window.rows()
        return {b: combine(rows.get(b, [])) for b in page}

    return read


def _total(column: str) -> MetricFn:
    return _per_bucket(lambda rows: _number(sum(int(r[column] or 0) for r in rows)))


def _avg_rate(column: str) -> MetricFn:
    """Per chain: the day's amount over the time from the last block before the day (or its
    first block) to its last block, at least 1 s; across chains the rates add."""

    def rate(r: dict[str, int | None]) -> float:
        first = r["first_ts"] if r["prev_ts"] is None else r["prev_ts"]
        return int(r[column] or 0) / max(1, int(r["last_ts"] or 0) - int(first or 0))

    return _per_bucket(lambda rows: float(sum(rate(r) for r in rows)))


def _max_rate(num: str, den: str) -> MetricFn:
    return _per_bucket(
        lambda rows: max((int(r[num] or 0) / int(r[den] or 1) for r in rows), default=0.0)
    )


def _avg_price(rows: Rows) -> Value:
    txs = sum(int(r["txs"] or 0) for r in rows)
    return sum(int(r["price_sum"] or 0) for r in rows) / txs if txs else 0.0


def _max_price(rows: Rows) -> Value:
    return _number(max((int(r["price_max"] or 0) for r in rows), default=0))


def _distinct(kind: str, column: str) -> MetricFn:
    """One chain: the count kept with its rollup; several: a union at query time."""

    def read(window: _Window, page: list[int]) -> dict[int, Value]:
        if len(window.chains) == 1:
            rows = window.rows()
            return {b: sum(int(r[column] or 0) for r in rows.get(b, [])) for b in page}
        counts = window.union_counts(kind)
        return {b: counts.get(b, 0) for b in page}

    return read


def _running(
    page: list[int], base: int, amounts: dict[int, int], inclusive: bool
) -> dict[int, Value]:
    """Running sums upward from `base`: through each bucket (inclusive) or up to it."""
    out: dict[int, Value] = {}
    total = base
    for b in reversed(page):
        if inclusive:
            total += amounts.get(b, 0)
        out[b] = _number(total)
        if not inclusive:
            total += amounts.get(b, 0)
    return out


def _cumulative(column: str, inclusive: bool) -> MetricFn:
    """Running sum of a day column from genesis: to the end of the day ("to 24 hours after
    the timestamp") or, exclusive, to its start ("to the timestamp")."""

    def read(window: _Window, page: list[int]) -> dict[int, Value]:
        rows = window.rows()
        amounts = {b: sum(int(r[column] or 0) for r in rs) for b, rs in rows.items()}
        return _running(page, window.before(column, window.low), amounts, inclusive)

    return read


def _cumulative_distinct(kind: str, column: str) -> MetricFn:
    def read(window: _Window, page: list[int]) -> dict[int, Value]:
        if len(window.chains) == 1:
            return _cumulative(column, True)(window, page)
        base, firsts = window.union_firsts(kind)
        return _running(page, base, firsts, True)

    return read


METRICS: dict[str, MetricFn] = {
    "activeAddresses": _distinct("address", "addresses"),
    "activeSenders": _distinct("sender", "senders"),
    "cumulativeTxCount": _cumulative("txs", True),
    "cumulativeAddresses": _cumulative_distinct("address", "new_addresses"),
    "cumulativeContracts": _cumulative("contracts", False),
    "cumulativeDeployers": _cumulative_distinct("deployer", "new_deployers"),
    "contracts": _total("contracts"),
    "deployers": _distinct("deployer", "deployers"),
    "gasUsed": _total("gas_used"),
    "txCount": _total("txs"),
    "avgGps": _avg_rate("block_gas"),
    "maxGps": _max_rate("gps_num", "gps_den"),
    "avgTps": _avg_rate("txs"),
    "maxTps": _max_rate("tps_num", "tps_den"),
    "avgGasPrice": _per_bucket(_avg_price),
    "maxGasPrice": _per_bucket(_max_price),
    "feesPaid": _total("fees"),
}
# Intervals each metric supports (the spec: all four for these, else day only).
ALL_INTERVALS = frozenset({"activeAddresses", "activeSenders", "gasUsed", "txCount"})


def intervals_of(metric: str) -> tuple[Interval, ...]:
    return ("hour", "day", "week", "month") if metric in ALL_INTERVALS else ("day",)
