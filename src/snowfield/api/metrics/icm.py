"""ICM message counts between chain pairs: /v2/icm/summary (rolling windows) and
/v2/icm/timeseries (per hour, day, week or month), read from store/icm_rollups.py.

Without `groupBy` a result sums every pair the filters keep, and names the filtered source and
destination (the empty string where a side is not filtered: no pair is invented for a sum).
The client's summary model holds one object, so the summary is always that sum; `groupBy`
splits the timeseries' points by pair."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.concurrency import run_in_threadpool

from snowfield.api.metrics.context import MetricsContext
from snowfield.api.metrics.params import (
    MAX_PAGE_SIZE,
    MAX_TIMESTAMP,
    PAGE_TOKEN,
    integer,
    one_of,
    page_size,
    page_token,
    single,
)
from snowfield.api.operation import Json, Operation
from snowfield.api.params import NETWORK, Param
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.store import chain_queries, icm_rollups, metric_tokens
from snowfield.store.buckets import INTERVALS, Interval, bucket_start, previous_start, starts_down
from snowfield.store.database import Database
from snowfield.store.icm_rollups import IcmQuery

GROUP_BY = ("srcBlockchainId", "destBlockchainId", "srcBlockchainId,destBlockchainId")
NETWORKS = ("mainnet", "fuji", "testnet")


def _blockchain(name: str, raw: str | None, problems: list[str]) -> str | None:
    if raw is None:
        return None
    try:
        return str(ID.from_string(raw))
    except Exception:
        problems.append(f"{name} must be a blockchain id (cb58)")
        return None


def _common(values: Mapping[str, str], problems: list[str]) -> dict[str, Any]:
    group = values.get("groupBy")
    if group is not None and group not in GROUP_BY:
        problems.append(one_of("groupBy", GROUP_BY))
    network = values.get("network")
    if network is not None and network not in NETWORKS:
        problems.append(one_of("network", NETWORKS))
    return {
        "src": _blockchain("srcBlockchainId", values.get("srcBlockchainId"), problems),
        "dest": _blockchain("destBlockchainId", values.get("destBlockchainId"), problems),
        "groupBy": group or "",
        "network": network,
    }


def _summary_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    problems: list[str] = []
    args = _common(single(query), problems)
    if problems:
        raise InvalidParams(problems[0], data=problems)
    return args


def _series_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    values = single(query)
    problems: list[str] = []
    args = _common(values, problems)
    span = values.get("timeInterval", "day")
    if span not in INTERVALS:
        problems.append(one_of("timeInterval", INTERVALS))
    args["span"] = span
    args["start"] = integer(
        "startTimestamp", values.get("startTimestamp"), 0, MAX_TIMESTAMP, problems
    )
    args["end"] = integer("endTimestamp", values.get("endTimestamp"), 0, MAX_TIMESTAMP, problems)
    if args["start"] is not None and args["end"] is not None and args["start"] > args["end"]:
        problems.append("startTimestamp must be less than or equal to endTimestamp")
    args["pageSize"] = page_size(values.get("pageSize"), problems)
    args["pageToken"] = page_token(values.get("pageToken"), problems)
    if problems:
        raise InvalidParams(problems[0], data=problems)
    return args


def _query(db: Database, args: dict[str, Any]) -> IcmQuery:
    network = args["network"]
    testnet = None if network is None else network != "mainnet"
    chains = [c.chain_id for c in chain_queries.list_chains(db, testnet=testnet)]
    group = args["groupBy"]
    return IcmQuery(chains, args["src"], args["dest"], "src" in group, "dest" in group)


def _summary(db: Database, args: dict[str, Any], now: int) -> Json:
    q = _query(db, args)
    q = IcmQuery(q.chains, q.src, q.dest)  # one object: never grouped (module docstring)
    windows: Json = dict(icm_rollups.windows(db, q, now))
    windows["srcBlockchainId"] = q.src or ""
    windows["destBlockchainId"] = q.dest or ""
    return {"result": windows}


async def get_summary(req: MetricsContext) -> Json:
    service = req.service
    return await run_in_threadpool(_summary, service.db, req.args, int(service.clock()))


Point = tuple[int, tuple[str, str], int]


def _points(db: Database, args: dict[str, Any], below: int | None) -> tuple[list[Point], bool]:
    """A page of points, newest bucket first: every bucket of the range when not grouped
    (an empty one is 0), else the pairs with messages, up to pageSize buckets."""
    q = _query(db, args)
    span: Interval = args["span"]
    limit = args["pageSize"]
    found = icm_rollups.counts(db, q, span)
    if not found:
        return [], False
    low = min(b for b, _ in found)
    high = max(b for b, _ in found)
    if args["start"] is not None:
        low = max(low, bucket_start(span, args["start"]))
    if args["end"] is not None:
        high = min(high, bucket_start(span, args["end"]))
    if below is not None:
        high = min(high, previous_start(span, below))
    if q.by_src or q.by_dest:
        buckets = sorted({b for b, _ in found if low <= b <= high}, reverse=True)[: limit + 1]
    else:
        buckets = starts_down(span, high, low, limit + 1)
    page = buckets[:limit]
    plain = (q.src or "", q.dest or "")
    points: list[Point] = []
    for b in page:
        groups = sorted(g for bucket, g in found if bucket == b)
        for g in groups or [plain]:
            points.append((b, g, found.get((b, g), 0)))
    return points, len(buckets) > limit


async def get_timeseries(req: MetricsContext) -> Json:
    service, args = req.service, req.args
    shaping = {k: v for k, v in args.items() if k not in ("pageSize", "pageToken")}
    scope = hashlib.sha256(orjson.dumps(["icm", shaping], option=orjson.OPT_SORT_KEYS)).hexdigest()
    below = await service.cursor(args["pageToken"], scope)
    points, more = await run_in_threadpool(_points, service.db, args, below)
    body: Json = {
        "results": [
            {"value": n, "timestamp": b, "srcBlockchainId": g[0], "destBlockchainId": g[1]}
            for b, g, n in points
        ]
    }
    if more:
        body["nextPageToken"] = await run_in_threadpool(
            metric_tokens.save_token, service.db, scope, points[-1][0], int(service.clock())
        )
    return body


_N = {"type": "number"}
_S = {"type": "string"}
_PAIR = {"srcBlockchainId": _S, "destBlockchainId": _S}
_WINDOW_NAMES = [name for name, _, _ in icm_rollups.WINDOWS]
SCHEMAS: dict[str, Any] = {
    "ICMRollingWindowMetricsApiResponse": {
        "type": "object",
        "required": ["result"],
        "properties": {
            "result": {
                "type": "object",
                "required": [*_WINDOW_NAMES, *_PAIR],
                "properties": {**dict.fromkeys(_WINDOW_NAMES, _N), **_PAIR},
                "additionalProperties": False,
            }
        },
        "additionalProperties": False,
    },
    "ICMMetricsApiResponse": {
        "type": "object",
        "required": ["results"],
        "properties": {
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["value", "timestamp", *_PAIR],
                    "properties": {"value": _N, "timestamp": {"type": "integer"}, **_PAIR},
                    "additionalProperties": False,
                },
            },
            "nextPageToken": _S,
        },
        "additionalProperties": False,
    },
}
_FILTERS = (
    Param("srcBlockchainId", "query", "Only messages from this chain (blockchain id, cb58)."),
    Param("destBlockchainId", "query", "Only messages to this chain (blockchain id, cb58)."),
    Param("groupBy", "query", "Split the points by source, destination or both.", enum=GROUP_BY),
    NETWORK,
)
_SERIES = (
    Param("startTimestamp", "query", "Buckets ending after this Unix time.", type="integer",
          minimum=0),
    Param("endTimestamp", "query", "Buckets starting at or before this Unix time.",
          type="integer", minimum=0),
    Param("timeInterval", "query", "Bucket length.", default="day", enum=INTERVALS),
    PAGE_TOKEN,
    Param("pageSize", "query", "Most buckets on one page.", type="integer", minimum=1,
          maximum=MAX_PAGE_SIZE, default=100),
)  # fmt: skip
_WEIGHT = 1
OPERATIONS: tuple[Operation[MetricsContext], ...] = (
    Operation("getICMSummary", "/v2/icm/summary", "ICM messages in rolling windows up to now.",
              "Metrics", _FILTERS, "ICMRollingWindowMetricsApiResponse", _WEIGHT, get_summary,
              arguments=_summary_args),
    Operation("getICMTimeseries", "/v2/icm/timeseries", "ICM messages per time bucket, newest"
              " first.", "Metrics", (*_FILTERS, *_SERIES), "ICMMetricsApiResponse", _WEIGHT,
              get_timeseries, arguments=_series_args),
)  # fmt: skip
