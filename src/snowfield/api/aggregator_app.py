"""The standalone signature aggregator's HTTP API (`snowfield aggregator`), as icm-services
serves it so existing relayers work unchanged: `/aggregate-signatures` (any method, a JSON
body with kebab-case keys), `/health`, and Prometheus `/metrics`.

Responses: 200 `{"signed-message": "<hex>"}`; errors `{"error": "<text>"}` with the real
service's texts and statuses (400 for a bad request, 500 when aggregation fails).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson
from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from snowfield.aggregator.aggregate import DEFAULT_QUORUM, AggregationRequest
from snowfield.aggregator.service import AggregatorService, parse_message, parse_subnet
from snowfield.aggregator.validators import AggregationError
from snowfield.api.request_body import MAX_BODY
from snowfield.errors import InvalidParams
from snowfield.routing.app import Endpoint, RoutedApp, Routes, endpoint
from snowfield.routing.table import Route, RouteTable, methods

MAX_UINT64 = 2**64 - 1


class _BadRequest(Exception):
    pass


def _hex(body: dict[str, Any], key: str, error: str) -> bytes:
    value = body.get(key) or ""
    if not isinstance(value, str):
        raise _BadRequest("Could not decode request body")
    try:
        return bytes.fromhex(value[2:] if value.startswith("0x") else value)
    except ValueError:
        raise _BadRequest(error) from None


def _uint(body: dict[str, Any], key: str) -> int:
    value = body.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_UINT64:
        raise _BadRequest("Could not decode request body")
    return value


def _request(body: dict[str, Any]) -> AggregationRequest:
    """The request, checked in icm-services' order with its texts."""
    quorum, buffer = _uint(body, "quorum-percentage"), _uint(body, "quorum-percentage-buffer")
    height = _uint(body, "pchain-height")
    message = _hex(body, "message", "Could not decode message")
    try:
        unsigned = parse_message(message)
    except InvalidParams:
        raise _BadRequest("Error unpacking warp message") from None
    justification = _hex(body, "justification", "Could not decode justification")
    if not any(message) and not any(justification):
        raise _BadRequest("Must provide either message or justification")
    quorum = quorum or DEFAULT_QUORUM
    if quorum > 100:
        raise _BadRequest("Invalid quorum number")
    if quorum + buffer > 100:
        raise _BadRequest("Invalid quorum buffer number")
    subnet = body.get("signing-subnet-id") or None
    signing = None
    if subnet is not None:
        try:
            signing = parse_subnet(str(subnet))
        except (InvalidParams, ValueError):
            raise _BadRequest("Error parsing signing subnet ID") from None
    return AggregationRequest(unsigned, justification, signing, quorum, buffer, height)


def create_aggregator_app(service: AggregatorService) -> RoutedApp[Endpoint]:
    registry = CollectorRegistry()
    requests = Counter("agg_sigs_req_count", "Aggregation requests received", registry=registry)
    failures = Counter("agg_sigs_failures", "Aggregations that failed", registry=registry)
    latency = Gauge("agg_sigs_latency_ms", "Latency of the last success", registry=registry)

    async def aggregate(request: Request) -> Response:
        requests.inc()
        raw = await request.body()
        try:
            if len(raw) > MAX_BODY:
                raise _BadRequest("Could not decode request body")
            try:
                body = orjson.loads(raw)
            except orjson.JSONDecodeError:
                raise _BadRequest("Could not decode request body") from None
            if not isinstance(body, dict):
                raise _BadRequest("Could not decode request body")
            parsed = _request(body)
        except _BadRequest as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        started = time.perf_counter()
        try:
            signed = await service.aggregate(parsed)
        except AggregationError as exc:
            failures.inc()
            text = f"failed to aggregate signatures. error: {exc}"
            return JSONResponse({"error": text}, status_code=500)
        latency.set((time.perf_counter() - started) * 1000)
        return JSONResponse({"signed-message": signed.encode().hex()})

    async def health(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def metrics(_: Request) -> Response:
        return Response(generate_latest(registry), media_type="text/plain; version=0.0.4")

    @contextlib.asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        try:
            yield
        finally:  # its peer connections live on this server's event loop
            await service.close()

    any_method = methods("GET", "POST", "PUT", "PATCH", "DELETE")  # the real route ignores it
    table = RouteTable(
        [
            Route("/aggregate-signatures", endpoint(aggregate), any_method),
            Route("/health", endpoint(health)),
            Route("/metrics", endpoint(metrics)),
        ]
    )
    routes = Routes(table, RouteTable[Endpoint](()))
    return RoutedApp(lambda: routes, lifespan=lifespan)
