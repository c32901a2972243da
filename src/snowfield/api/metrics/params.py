"""Query parameters of the metrics service, checked all at once: every problem is one sentence of
the error body's `message` array (class-validator style, as the real service words them)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from snowfield.api.params import Param, decimal, single_values
from snowfield.errors import InvalidParams
from snowfield.store.buckets import INTERVALS, Interval
from snowfield.store.rollup_reads import METRICS, intervals_of

MAX_PAGE_SIZE = 2160
DEFAULT_PAGE_SIZE = 100
DEFAULT_INTERVAL: Interval = "day"  # valid for every metric (docs/metrics.md)
MAX_TIMESTAMP = 2**63 - 1


@dataclass(frozen=True, slots=True)
class MetricQuery:
    metric: str
    span: Interval
    start: int | None
    end: int | None
    page_size: int
    page_token: str | None


def one_of(name: str, values: tuple[str, ...]) -> str:
    return f"{name} must be one of the following values: {', '.join(values)}"


def integer(name: str, raw: str | None, low: int, high: int, problems: list[str]) -> int | None:
    if raw is None:
        return None
    magnitude = decimal(raw.removeprefix("-"))
    if magnitude is None:
        problems.append(f"{name} must be an integer number")
        return None
    value = -magnitude if raw.startswith("-") else magnitude
    if value < low:
        problems.append(f"{name} must not be less than {low}")
    elif value > high:
        problems.append(f"{name} must not be greater than {high}")
    else:
        return value
    return None


def page_token(raw: str | None, problems: list[str]) -> str | None:
    if raw is None:
        return None
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        problems.append("pageToken must be a UUID")
        return None


def page_size(raw: str | None, problems: list[str]) -> int:
    size = integer("pageSize", raw, 1, MAX_PAGE_SIZE, problems)
    return DEFAULT_PAGE_SIZE if size is None else size


def single(query: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The query by name; InvalidParams in this service's shape for a repeated name."""
    try:
        return single_values(query)
    except InvalidParams as exc:
        raise InvalidParams(exc.message, data=[exc.message]) from None


def metric_query(metric: str, query: Mapping[str, str]) -> MetricQuery:
    """Operation 17's arguments; InvalidParams carries every problem in `data`."""
    problems: list[str] = []
    if metric not in METRICS:
        problems.append(one_of("metric", tuple(METRICS)))
    span = query.get("timeInterval", DEFAULT_INTERVAL)
    if span not in INTERVALS:
        problems.append(one_of("timeInterval", INTERVALS))
    elif metric in METRICS and span not in intervals_of(metric):
        supported = ", ".join(intervals_of(metric))
        problems.append(f"timeInterval {span} is not supported for {metric}: use {supported}")
    start = integer("startTimestamp", query.get("startTimestamp"), 0, MAX_TIMESTAMP, problems)
    end = integer("endTimestamp", query.get("endTimestamp"), 0, MAX_TIMESTAMP, problems)
    if start is not None and end is not None and start > end:
        problems.append("startTimestamp must be less than or equal to endTimestamp")
    size = page_size(query.get("pageSize"), problems)
    token = page_token(query.get("pageToken"), problems)
    if problems:
        raise InvalidParams(problems[0], data=problems)
    return MetricQuery(metric, cast(Interval, span), start, end, size, token)


def avg_tps_token(query: Mapping[str, str]) -> str | None:
    """Operation 18's only argument."""
    problems: list[str] = []
    token = page_token(query.get("pageToken"), problems)
    if problems:
        raise InvalidParams(problems[0], data=problems)
    return token


# For the OpenAPI document.
CHAIN_ID = Param(
    "chainId",
    "path",
    "An EVM chain id, or total, mainnet or testnet: aggregates over the indexed chains.",
    required=True,
)
METRIC = Param(
    "metric", "path", "The metric (docs/metrics.md defines each).", required=True,
    enum=tuple(METRICS),
)  # fmt: skip
PAGE_TOKEN = Param("pageToken", "query", "The nextPageToken of the previous page (valid 24 hours).")
QUERY = (
    Param("startTimestamp", "query", "Buckets ending after this Unix time.", type="integer",
          minimum=0),
    Param("endTimestamp", "query", "Buckets starting at or before this Unix time.",
          type="integer", minimum=0),
    Param("timeInterval", "query", "Bucket length; day (the default) suits every metric; hour,"
          " week and month only activeAddresses, activeSenders, gasUsed and txCount.",
          default=DEFAULT_INTERVAL, enum=INTERVALS),
    PAGE_TOKEN,
    Param("pageSize", "query", "Most data points on one page.", type="integer", minimum=1,
          maximum=MAX_PAGE_SIZE, default=DEFAULT_PAGE_SIZE),
)  # fmt: skip
