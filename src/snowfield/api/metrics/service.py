"""create_metrics_app: the metrics service (operations 17 and 18) over the rollup tables."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import URL
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Scope, Send
from starlette.websockets import WebSocketClose

from snowfield.api.errors import status_of
from snowfield.api.gate import Gate, RatePolicy
from snowfield.api.metrics import chains as metric_chains
from snowfield.api.metrics import icm as metric_icm
from snowfield.api.metrics import l1_fees, looking_glass, rolling, staking
from snowfield.api.metrics.context import Clock, MetricsContext, MetricsService
from snowfield.api.metrics.openapi import metrics_openapi
from snowfield.api.metrics.params import (
    CHAIN_ID,
    METRIC,
    PAGE_TOKEN,
    QUERY,
    avg_tps_token,
    metric_query,
    single,
)
from snowfield.api.operation import Json, Operation
from snowfield.api.ratelimit import Limiter, MemoryLimiter
from snowfield.api.responses import Headers, send_json_length_first
from snowfield.api.router import Router, operation_routes
from snowfield.api.telemetry import Recorder
from snowfield.errors import RateLimited, SnowfieldError
from snowfield.store import rollup_reads
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey

log = logging.getLogger("snowfield.api.metrics")
AVG_TPS_PAGE = 100


async def send_metrics_error(
    scope: Scope, send: Send, exc: BaseException, headers: Headers = ()
) -> int:
    """{message: [sentences], statusCode, error}: the metrics service's error body."""
    status = status_of(exc)
    if status == 405:  # as a NestJS service answers a method no route has
        status = 404
    if isinstance(exc, SnowfieldError) and status != 500:
        data = exc.data
        messages = [str(m) for m in data] if isinstance(data, list) else [exc.message]
    elif isinstance(exc, HTTPException):
        where = f"{scope['method']} {URL(scope=scope).path}"
        messages = [f"Cannot {where}" if status == 404 else str(exc.detail)]
    else:
        log.error("unhandled error", exc_info=exc)
        messages = ["internal server error"]
    extra = []
    if isinstance(exc, RateLimited):
        extra.append((b"retry-after", b"%d" % max(1, int(exc.retry_after + 0.999))))
    body = orjson.dumps(
        {"message": messages, "statusCode": status, "error": HTTPStatus(status).phrase}
    )
    return await send_json_length_first(scope, send, body, status, headers, own=extra)


def _scope(*parts: object) -> str:
    """The query a page token continues (everything but pageToken and pageSize)."""
    return hashlib.sha256(orjson.dumps(parts)).hexdigest()


def _metric_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    return {"chainId": path["chainId"], "query": metric_query(path["metric"], single(query))}


async def get_metrics(req: MetricsContext) -> Json:
    service, ref, q = req.service, req.args["chainId"], req.args["query"]
    chains = await service.chains(ref)
    scope = _scope("metrics", ref, q.metric, q.span, q.start, q.end)
    below = await service.cursor(q.page_token, scope)
    found = await service.series(
        chains, q.metric, q.span, start=q.start, end=q.end, below=below, limit=q.page_size
    )
    return await service.page({}, found, scope)


def _avg_tps_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    return {"chainId": path["chainId"], "pageToken": avg_tps_token(single(query))}


async def get_avg_tps(req: MetricsContext) -> Json:
    service, ref = req.service, req.args["chainId"]
    chains = await service.chains(ref)
    scope = _scope("avg_tps", ref)
    below = await service.cursor(req.args["pageToken"], scope)
    found = await service.series(
        chains, "avgTps", "day", start=None, end=None, below=below, limit=AVG_TPS_PAGE
    )
    last = await run_in_threadpool(rollup_reads.last_run, service.db, chains)
    body: dict[str, Any] = {"status": 200, "lastRun": last}
    return await service.page(body, found, scope)


# Every metrics request costs one unit, the OpenAPI document and unknown routes too.
_WEIGHT = 1
OPERATIONS: tuple[Operation[MetricsContext], ...] = (
    Operation(
        "getMetrics",
        "/v2/chains/{chainId}/metrics/{metric}",
        "A metric of an EVM chain (or of all, mainnet or testnet chains), newest first.",
        "Metrics",
        (CHAIN_ID, METRIC, *QUERY),
        "MetricsResponse",
        _WEIGHT,
        get_metrics,
        arguments=_metric_args,
    ),
    Operation(
        "getAvgTps",
        "/v1/avg_tps/{chainId}",
        "Daily average transactions per second, newest first, 100 per page.",
        "Metrics",
        (CHAIN_ID, PAGE_TOKEN),
        "AvgTpsResponse",
        _WEIGHT,
        get_avg_tps,
        arguments=_avg_tps_args,
    ),
)


OPERATIONS = (
    *OPERATIONS,
    *metric_chains.OPERATIONS,
    *metric_icm.OPERATIONS,
    *rolling.OPERATIONS,
    *staking.OPERATIONS,
    *l1_fees.OPERATIONS,
    *looking_glass.OPERATIONS,
)


def create_metrics_app(
    db: Database,
    *,
    clock: Clock = time.time,
    limiter: Limiter | None = None,
    rate_per_minute: int = 6000,
) -> ASGIApp:
    """The metrics service over `db` (already migrated); `clock` dates page tokens."""
    service = MetricsService(db, clock)

    def context(
        op: Operation[MetricsContext], args: dict[str, Any], key: ApiKey | None
    ) -> MetricsContext:
        return MetricsContext(service, args)

    routes = operation_routes(
        OPERATIONS,
        context,
        send_metrics_error,
        document=orjson.dumps(metrics_openapi(OPERATIONS)),
        document_weight=_WEIGHT,
        respond=send_json_length_first,
    )
    chosen = limiter if limiter is not None else MemoryLimiter()
    # Callers are counted by IP; the API-key header, if sent, is ignored (no keys here).
    gate = Gate(
        db=db,
        limiter=chosen,
        policy=RatePolicy(anonymous=rate_per_minute),
        keys=False,
        prefix="metrics:",
    )
    router = Router(
        routes,
        gate=gate,
        recorder=Recorder("metrics"),
        errors=send_metrics_error,
        on_shutdown=chosen.close,
        unmatched_weight=_WEIGHT,
        websocket=WebSocketClose(),  # as Starlette refuses a socket no route takes
        redirect_slashes=True,
    )
    # Browsers on other origins (the explorer beside the data API) may read it, as the
    # public service allows.
    return CORSMiddleware(router, allow_origins=["*"], allow_methods=["GET"])
