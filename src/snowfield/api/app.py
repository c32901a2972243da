"""create_data_app: the data service's ASGI app from a database, settings and a limiter."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Scope

from snowfield.api import addresses, blocks, chains, contracts
from snowfield.api.errors import error_response
from snowfield.api.gate import Gate, RatePolicy
from snowfield.api.openapi import openapi_document
from snowfield.api.operation import ChainCache, Operation, Services, endpoint
from snowfield.api.ratelimit import Limiter, MemoryLimiter
from snowfield.api.responses import JsonResponse
from snowfield.api.telemetry import Telemetry
from snowfield.errors import Unavailable
from snowfield.store.database import Database
from snowfield.store.pagination import PageTokens

OPERATIONS: tuple[Operation, ...] = (
    *chains.OPERATIONS,
    *contracts.OPERATIONS,
    *addresses.OPERATIONS,
    *blocks.OPERATIONS,
)
VERSION = "1.0.0"
_UNMATCHED_WEIGHT = 1  # unknown routes and the OpenAPI document still count against the limit


async def _http_error(request: Request, exc: Exception) -> Response:
    return error_response(exc)


def create_data_app(
    db: Database,
    *,
    policy: RatePolicy | None = None,
    limiter: Limiter | None = None,
    operations: Sequence[Operation] = OPERATIONS,
) -> ASGIApp:
    """The data service over `db` (already migrated); `limiter` defaults to in-memory counters."""
    secret = db.meta("page_token_secret")
    if secret is None:
        raise Unavailable("the database has no page-token secret: run its migration first")
    services = Services(db, PageTokens(secret), ChainCache(db))
    routes = [Route(op.path, endpoint(op, services), methods=["GET"]) for op in operations]
    document = openapi_document(operations, title="snowfield data API", version=VERSION)

    async def openapi(request: Request) -> Response:
        return JsonResponse(document)

    weighted = [(route, op.weight) for route, op in zip(routes, operations, strict=True)]

    def weight(scope: Scope) -> int:
        for route, units in weighted:
            if route.matches(scope)[0] is Match.FULL:
                return units
        return _UNMATCHED_WEIGHT

    def route_of(scope: Scope) -> str:
        for route, _ in weighted:
            if route.matches(scope)[0] is Match.FULL:
                return route.path
        return "/openapi.json" if scope["path"] == "/openapi.json" else "(unmatched)"

    chosen = limiter if limiter is not None else MemoryLimiter()

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        await chosen.close()

    app = Starlette(
        routes=[*routes, Route("/openapi.json", openapi, methods=["GET"])],
        exception_handlers={HTTPException: _http_error},
        lifespan=lifespan,
    )
    gated = Gate(app, db=db, limiter=chosen, policy=policy or RatePolicy(), weight=weight)
    return Telemetry(gated, service="data", route_of=route_of)
