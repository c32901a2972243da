"""create_metrics_app: the metrics service (operations 17 and 18) over the rollup tables."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from http import HTTPStatus
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from snowfield.api.errors import status_of
from snowfield.api.metric_params import avg_tps_token, metric_query, single
from snowfield.api.metrics_openapi import metrics_openapi
from snowfield.api.params import decimal
from snowfield.api.ratelimit import Limiter, MemoryLimiter, sending_headers
from snowfield.api.responses import JsonResponse
from snowfield.api.routes import RouteSpec, RouteTable
from snowfield.api.telemetry import Telemetry
from snowfield.errors import InvalidParams, NotFound, RateLimited, SnowfieldError
from snowfield.store import metric_tokens, rollup_reads
from snowfield.store.buckets import Interval
from snowfield.store.database import Database
from snowfield.store.rollup_reads import Series

log = logging.getLogger("snowfield.api.metrics")
Clock = Callable[[], float]
AVG_TPS_PAGE = 100
AGGREGATES = ("total", "mainnet", "testnet")


def metrics_error(exc: BaseException, request: Request | None = None) -> JsonResponse:
    """{message: [sentences], statusCode, error}: the metrics service's error body."""
    status = status_of(exc)
    if status == 405:  # as a NestJS service answers a method no route has
        status = 404
    if isinstance(exc, SnowfieldError) and status != 500:
        data = exc.data
        messages = [str(m) for m in data] if isinstance(data, list) else [exc.message]
    elif isinstance(exc, HTTPException):
        where = "" if request is None else f" {request.method} {request.url.path}"
        messages = [f"Cannot{where}" if status == 404 else str(exc.detail)]
    else:
        log.error("unhandled error", exc_info=exc)
        messages = ["internal server error"]
    headers = {}
    if isinstance(exc, RateLimited):
        headers["retry-after"] = str(max(1, int(exc.retry_after + 0.999)))
    body = {"message": messages, "statusCode": status, "error": HTTPStatus(status).phrase}
    return JsonResponse(body, status_code=status, headers=headers)


class _Service:
    """The handlers' collaborators: the store, the clock and page tokens."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    async def chains(self, ref: str) -> list[int]:
        """The chains `ref` names: one EVM chain id, or an aggregate of the indexed chains."""
        networks = await run_in_threadpool(rollup_reads.chain_networks, self.db)
        if ref == "total":
            return sorted(networks)
        if ref == "mainnet":
            return sorted(c for c, n in networks.items() if n == "mainnet")
        if ref == "testnet":  # the test network and local networks
            return sorted(c for c, n in networks.items() if n != "mainnet")
        number = decimal(ref)
        if number is not None and number in networks:
            return [number]
        raise NotFound(f"chain {ref} is not supported")

    async def cursor(self, token: str | None, scope: str) -> int | None:
        """Where the page continues; None (page one) without a token, or with an unknown or
        expired one."""
        if token is None:
            return None
        stored = await run_in_threadpool(metric_tokens.load_token, self.db, token)
        if stored is None:
            return None
        if stored.scope != scope:
            raise InvalidParams("pageToken was issued for a different query")
        if self.clock() - stored.created >= metric_tokens.TOKEN_LIFETIME:
            return None
        return stored.cursor

    async def page(self, body: dict[str, Any], series: Series, scope: str) -> dict[str, Any]:
        body["results"] = [{"value": v, "timestamp": t} for t, v in series.points]
        if series.more:
            body["nextPageToken"] = await run_in_threadpool(
                metric_tokens.save_token, self.db, scope, series.points[-1][0], int(self.clock())
            )
        return body


def _scope(*parts: object) -> str:
    """The query a page token continues (everything but pageToken and pageSize)."""
    return hashlib.sha256(orjson.dumps(parts)).hexdigest()


async def _series(
    service: _Service, chains: Sequence[int], metric: str, span: Interval, **kwargs: Any
) -> Series:
    return await run_in_threadpool(
        lambda: rollup_reads.series(service.db, chains, metric, span, **kwargs)
    )


def _metric_endpoint(service: _Service) -> Callable[[Request], Awaitable[Response]]:
    async def serve(request: Request) -> Response:
        ref, metric = request.path_params["chainId"], request.path_params["metric"]
        q = metric_query(metric, single(request.query_params.multi_items()))
        chains = await service.chains(ref)
        scope = _scope("metrics", ref, q.metric, q.span, q.start, q.end)
        below = await service.cursor(q.page_token, scope)
        found = await _series(
            service, chains, q.metric, q.span,
            start=q.start, end=q.end, below=below, limit=q.page_size,
        )  # fmt: skip
        return JsonResponse(await service.page({}, found, scope))

    return serve


def _avg_tps_endpoint(service: _Service) -> Callable[[Request], Awaitable[Response]]:
    async def serve(request: Request) -> Response:
        ref = request.path_params["chainId"]
        token = avg_tps_token(single(request.query_params.multi_items()))
        chains = await service.chains(ref)
        scope = _scope("avg_tps", ref)
        below = await service.cursor(token, scope)
        found = await _series(
            service, chains, "avgTps", "day", start=None, end=None, below=below, limit=AVG_TPS_PAGE
        )
        last = await run_in_threadpool(rollup_reads.last_run, service.db, chains)
        body: dict[str, Any] = {"status": 200, "lastRun": last}
        return JsonResponse(await service.page(body, found, scope))

    return serve


def _guarded(
    handler: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """Every failure of a handler answers in the metrics error shape (crashes as 500)."""

    async def serve(request: Request) -> Response:
        try:
            return await handler(request)
        except Exception as exc:
            return metrics_error(exc, request)

    return serve


class _RateGate:
    """Counts requests per client IP against the shared limiter; the API-key header, if sent,
    is ignored (the metrics service has no keys)."""

    def __init__(self, app: ASGIApp, limiter: Limiter, per_minute: int) -> None:
        self.app = app
        self.limiter = limiter
        self.per_minute = per_minute

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        identity = f"metrics:ip:{client[0] if client else 'unknown'}"
        try:
            decision = await self.limiter.charge(identity, 1, self.per_minute)
        except Exception as exc:
            await metrics_error(exc)(scope, receive, send)
            return
        if not decision.allowed:
            refused = RateLimited("rate limit exceeded", retry_after=decision.reset)
            response = metrics_error(refused)
            response.headers.update(decision.headers())
            await response(scope, receive, send)
            return
        await self.app(scope, receive, sending_headers(send, decision.raw_headers()))


def create_metrics_app(
    db: Database,
    *,
    clock: Clock = time.time,
    limiter: Limiter | None = None,
    rate_per_minute: int = 6000,
) -> ASGIApp:
    """The metrics service over `db` (already migrated); `clock` dates page tokens."""
    service = _Service(db, clock)
    document = metrics_openapi()

    async def openapi(request: Request) -> Response:
        return JsonResponse(document)

    async def http_error(request: Request, exc: Exception) -> Response:
        return metrics_error(exc, request)

    chosen = limiter if limiter is not None else MemoryLimiter()

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        await chosen.close()

    routes = [
        Route(
            "/v2/chains/{chainId}/metrics/{metric}",
            _guarded(_metric_endpoint(service)),
            methods=["GET"],
        ),
        Route("/v1/avg_tps/{chainId}", _guarded(_avg_tps_endpoint(service)), methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: http_error, Exception: http_error},
        lifespan=lifespan,
    )

    # Every metrics request costs one unit, so the table only names the route for telemetry.
    table = RouteTable([RouteSpec(route.path, 1) for route in routes])
    served = Telemetry(
        _RateGate(app, chosen, rate_per_minute),
        service="metrics",
        route_of=lambda scope: table.resolve(scope).label,
    )
    # Browsers on other origins (the explorer beside the data API) may read it, as the
    # public service allows.
    return CORSMiddleware(served, allow_origins=["*"], allow_methods=["GET"])
