"""Usage of the data service by the caller's API key: apiUsageMetrics (counts, success rate,
median latency, compute units per time bucket, grouped by one field), apiLogs (the requests
themselves, newest first) and the RPC pair (rpcUsageMetrics, subnetRpcUsageMetrics).

An "organisation" of the real service is an API key here: `orgId` is the key's id, and a
caller sees the requests made with its own key (the usage operations need one: 401 without).
The RPC pair reads the requests of type `rpc`: a snowfield deployment's data service relays no
JSON-RPC (clients call the node directly, where this service cannot see them), so they
answer an empty series; see docs/data-api/operations.md."""

from __future__ import annotations

import calendar
import datetime
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, Param
from snowfield.errors import Forbidden, InvalidParams, Unauthorized
from snowfield.store import usage_log
from snowfield.store.keys import ApiKey
from snowfield.store.usage_log import RequestFilter, RequestRow

DAY = 86_400
DEFAULT_DAYS = 30  # without startTimestamp: the 30 days up to the end
MAX_ROWS = 1_000_000  # requests one metrics answer may read; a larger range must be narrowed
_SECONDS = {"minute": 60, "hourly": 3600, "daily": DAY, "weekly": 7 * DAY}
_GROUPS = {
    "requestPath": lambda r: r.path,
    "responseCode": lambda r: r.status,
    "chainId": lambda r: r.chain_id,
    "apiKeyId": lambda r: r.key_id,
    "requestType": lambda r: r.request_type,
}
_RPC_GROUPS = ("rpcMethod", "responseCode", "rlBypassToken")


def _q(name: str, text: str, **kw: Any) -> Param:
    return Param(name, "query", text, **kw)


ORG_ID = _q("orgId", "Organisation: the id of the caller's API key (the only one it may read).")
START = _q(
    "startTimestamp",
    "Start of the range (Unix seconds), rounded down to 00:00 UTC of its day; default 30 days"
    " before the end.",
    type="integer",
    minimum=0,
)
END = _q(
    "endTimestamp",
    "End of the range (Unix seconds), rounded down to 00:00 UTC of its day; the range covers"
    " that whole day. Default: today.",
    type="integer",
    minimum=0,
)
INTERVAL = _q(
    "timeInterval",
    "Bucket length.",
    default="daily",
    enum=("minute", "hourly", "daily", "weekly", "monthly"),
)
RPC_INTERVAL = _q(
    "timeInterval", "Bucket length.", default="daily", enum=("hourly", "daily", "weekly", "monthly")
)
GROUP_BY = _q("groupBy", "Group each bucket's requests by this field.", enum=tuple(_GROUPS))
RPC_GROUP_BY = _q("groupBy", "Group each bucket's calls by this field.", enum=_RPC_GROUPS)
CHAIN = _q("chainId", "Only requests for this chain (their chainId path parameter).")
RESPONSE_CODE = _q("responseCode", "Only requests answered with this HTTP status.")
REQUEST_TYPE = _q("requestType", "Only requests of this type.", enum=("data", "rpc"))
API_KEY_ID = _q("apiKeyId", "Only requests made with this API key (the caller's).")
REQUEST_PATH = _q("requestPath", "Only requests of this path (as requested, without query).")
RPC_METHOD = _q("rpcMethod", "Only calls of this JSON-RPC method.")
RL_BYPASS = _q("rlBypassApiToken", "Only calls made with this rate-limit bypass token.")


def _caller(ctx: Context) -> ApiKey:
    key = ctx.key
    if key is None:
        raise Unauthorized("usage is read with an API key: send it in x-service-api-key")
    for name in ("orgId", "apiKeyId"):
        asked = ctx.args.get(name)
        if asked is not None and asked != key.id:
            raise Forbidden(f"{name} {asked} is not this API key's")
    return key


def _day(timestamp: int) -> int:
    return timestamp - timestamp % DAY


def _window(ctx: Context, now: float) -> tuple[int, int]:
    """[start, end) in Unix seconds: whole UTC days."""
    end = ctx.args.get("endTimestamp")
    end_day = _day(int(now) if end is None else min(int(end), 2**40))
    start = ctx.args.get("startTimestamp")
    start_day = end_day - (DEFAULT_DAYS - 1) * DAY if start is None else _day(min(start, 2**40))
    if start_day > end_day:
        raise InvalidParams("startTimestamp must not be after endTimestamp")
    return start_day, end_day + DAY


def _status(ctx: Context) -> int | None:
    raw = ctx.args.get("responseCode")
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or not 100 <= int(raw) <= 599:
        raise InvalidParams("responseCode must be an HTTP status code (100-599)")
    return int(raw)


async def _filter(ctx: Context, key: ApiKey, now: float, request_type: str | None) -> RequestFilter:
    """The caller's requests the arguments select; a chain is named as operation 5 names it
    (EVM or blockchain id: 404 unknown, 403 when the key may not read it)."""
    start, end = _window(ctx, now)
    chain = None if ctx.args.get("chainId") is None else await ctx.chain()
    return RequestFilter(
        key.id,
        start * 1000,
        end * 1000,
        chain_id=None if chain is None else str(chain.chain_id),
        status=_status(ctx),
        request_type=request_type,
        path=ctx.args.get("requestPath"),
    )


def bucket_of(interval: str) -> Callable[[int], int]:
    """The start (Unix seconds) of the bucket a time (Unix seconds) falls in."""
    if interval == "monthly":

        def month(t: int) -> int:
            d = datetime.datetime.fromtimestamp(t, datetime.UTC)
            return calendar.timegm((d.year, d.month, 1, 0, 0, 0))

        return month
    if interval == "weekly":  # weeks start on Monday (1970-01-01 was a Thursday)
        return lambda t: t - (t - 4 * DAY) % (7 * DAY)
    size = _SECONDS[interval]
    return lambda t: t - t % size


def _seconds(interval: str, bucket: int) -> int:
    if interval != "monthly":
        return _SECONDS[interval]
    d = datetime.datetime.fromtimestamp(bucket, datetime.UTC)
    return calendar.monthrange(d.year, d.month)[1] * DAY


def values(rows: list[RequestRow], seconds: int) -> Json:
    """The figures of one group of requests in a bucket of `seconds`."""
    total = len(rows)
    invalid = [r for r in rows if 400 <= r.status < 500]
    ok = sum(1 for r in rows if r.status < 400)
    return {
        "totalRequests": total,
        "requestsPerSecond": total / seconds,
        "successRatePercent": ok * 100 / total,
        "medianResponseTimeMsecs": statistics.median(r.latency_ms for r in rows),
        "invalidRequests": len(invalid),
        "apiCreditsUsed": sum(r.credits for r in rows),
        "apiCreditsWasted": sum(r.credits for r in invalid),
    }


def series(
    rows: Iterable[RequestRow], interval: str, group: str | None, read: Callable[[RequestRow], Any]
) -> list[Json]:
    """Metric points, oldest bucket first; in each, one value per group (by first seen)."""
    bucket = bucket_of(interval)
    found: dict[int, dict[Any, list[RequestRow]]] = {}
    for r in rows:
        found.setdefault(bucket(r.at_ms // 1000), {}).setdefault(read(r), []).append(r)
    out = []
    for start, groups in sorted(found.items()):
        points = []
        for value, members in groups.items():
            point: Json = {"groupedBy": group or "None"}
            if group is not None and value is not None:
                point["groupValue"] = value
            points.append({**point, **values(members, _seconds(interval, start))})
        out.append({"timestamp": start, "values": points})
    return out


def _read_all(ctx: Context, where: RequestFilter) -> list[RequestRow]:
    rows = usage_log.requests_in(ctx.db, where, limit=MAX_ROWS + 1)
    if len(rows) > MAX_ROWS:
        raise InvalidParams(f"the range holds more than {MAX_ROWS} requests: narrow it")
    return rows


async def api_usage_metrics(ctx: Context) -> Json:
    key = _caller(ctx)
    where = await _filter(ctx, key, time.time(), ctx.args.get("requestType"))
    rows = await ctx.run(_read_all, ctx, where)
    group = ctx.args.get("groupBy")
    read = _GROUPS[group] if group else (lambda r: None)
    interval = ctx.args["timeInterval"]
    return {
        "aggregateDuration": interval,
        "orgId": key.id,
        "metrics": series(rows, interval, group, read),
    }


async def api_logs(ctx: Context) -> Json:
    key = _caller(ctx)
    where = await _filter(ctx, key, time.time(), ctx.args.get("requestType"))
    page = await ctx.run(
        usage_log.requests_page, ctx.db, where, after=ctx.after(), limit=ctx.args["pageSize"]
    )
    return {
        **ctx.next_page(page),
        "orgId": key.id,
        "logs": [_log(r, key) for r in page.items],
    }


def _log(r: RequestRow, key: ApiKey) -> Json:
    out: Json = {
        "orgId": key.id,
        "logId": r.log_id,
        "eventTimestamp": r.at_ms,
        "apiKeyId": r.key_id or "",
        "apiKeyAlias": r.key_name or "",
        "hostRegion": "",  # one deployment, no regions
        "requestType": r.request_type,
        "requestPath": r.path,
        "apiCreditsConsumed": r.credits,
        "requestDurationMsecs": r.latency_ms,
        "responseCode": r.status,
    }
    if r.chain_id is not None:
        out["chainId"] = r.chain_id
    if r.rpc_method is not None:
        out["rpcMethod"] = r.rpc_method
    out["metadata"] = {"ipAddress": r.ip, "host": r.host, "userAgent": r.user_agent}
    return out


async def rpc_usage_metrics(ctx: Context) -> Json:
    key = _caller(ctx)
    where = await _filter(ctx, key, time.time(), "rpc")
    rows = await ctx.run(_read_all, ctx, where)
    method = ctx.args.get("rpcMethod")
    rows = [r for r in rows if method is None or r.rpc_method == method]
    group = ctx.args.get("groupBy")
    reads: dict[str, Callable[[RequestRow], Any]] = {
        "rpcMethod": lambda r: r.rpc_method,
        "responseCode": lambda r: r.status,
        "rlBypassToken": lambda r: None,
    }
    interval = ctx.args["timeInterval"]
    read = reads[group] if group else (lambda r: None)
    return {
        "aggregateDuration": interval,
        "metrics": series(rows, interval, group, read),
        "chainId": ctx.args.get("chainId") or "",
    }


_USAGE_FILTERS = (CHAIN, RESPONSE_CODE, REQUEST_TYPE, API_KEY_ID, REQUEST_PATH)
_RPC_PARAMS = (RPC_INTERVAL, START, END, RPC_GROUP_BY, CHAIN, RESPONSE_CODE, RPC_METHOD, RL_BYPASS)
_TAG = "Data API usage metrics"

OPERATIONS = (
    Operation(
        "getApiUsageMetrics",
        "/v1/apiUsageMetrics",
        "Requests made with the caller's API key per time bucket: counts, success rate, median"
        " latency and compute units, grouped by path, status, chain, key or type.",
        _TAG,
        (ORG_ID, START, END, INTERVAL, GROUP_BY, *_USAGE_FILTERS),
        "UsageMetricsResponse",
        200,
        api_usage_metrics,
    ),
    Operation(
        "getApiLogs",
        "/v1/apiLogs",
        "The requests made with the caller's API key, newest first.",
        _TAG,
        (ORG_ID, START, END, *_USAGE_FILTERS, PAGE_TOKEN, PAGE_SIZE.bounded(1, 100, 10)),
        "LogsResponse",
        200,
        api_logs,
    ),
    Operation(
        "getSubnetRpcUsageMetrics",
        "/v1/subnetRpcUsageMetrics",
        "JSON-RPC calls relayed by this service for the caller's API key, per time bucket (none:"
        " a snowfield deployment serves JSON-RPC from its node, not through this service).",
        _TAG,
        _RPC_PARAMS,
        "RpcUsageMetricsResponse",
        200,
        rpc_usage_metrics,
    ),
    Operation(
        "getRpcUsageMetrics",
        "/v1/rpcUsageMetrics",
        "Deprecated by the real service in favour of /v1/subnetRpcUsageMetrics; the same answer.",
        _TAG,
        _RPC_PARAMS,
        "RpcUsageMetricsResponse",
        200,
        rpc_usage_metrics,
    ),
)
