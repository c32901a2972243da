"""create_data_app: the data service's ASGI app from a database, settings and a limiter."""

from __future__ import annotations

from collections.abc import Sequence

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from snowfield.api import addresses, blocks, chains, contracts
from snowfield.api.gate import Gate, RatePolicy
from snowfield.api.openapi import openapi_document
from snowfield.api.operation import ChainCache, Operation, Services, endpoint
from snowfield.api.ratelimit import Limiter, MemoryLimiter
from snowfield.api.responses import send_json
from snowfield.api.router import Router
from snowfield.api.routes import RouteSpec, RouteTable
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
_UNMATCHED_WEIGHT = 1


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
    document = orjson.dumps(
        openapi_document(operations, title="snowfield data API", version=VERSION)
    )

    async def openapi(scope: Scope, receive: Receive, send: Send, path: dict[str, str]) -> None:
        await send_json(scope, send, document)

    # The OpenAPI document and unknown routes still count against the limit.
    table = RouteTable(
        [*(RouteSpec(op.path, op.weight) for op in operations),
         RouteSpec("/openapi.json", _UNMATCHED_WEIGHT)],
        unmatched_weight=_UNMATCHED_WEIGHT,
    )  # fmt: skip
    chosen = limiter if limiter is not None else MemoryLimiter()
    router = Router(
        table,
        [*(endpoint(op, services) for op in operations), openapi],
        on_shutdown=chosen.close,
    )
    gated = Gate(
        router,
        db=db,
        limiter=chosen,
        policy=policy or RatePolicy(),
        weight=lambda scope: table.resolve(scope).weight,
    )
    return Telemetry(gated, service="data", route_of=lambda scope: table.resolve(scope).label)
