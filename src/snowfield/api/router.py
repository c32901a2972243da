"""The front door of the data and metrics services: one ASGI callable that resolves the route
once (a `RouteTable`), passes the gate (key, rate limit), answers with the operation's endpoint
and records the request for /metrics. Unknown paths answer 404 and other methods 405, both in
the service's error shape and with the rate-limit headers, like every answer.

These steps are plain calls rather than nested middlewares: each middleware layer wrapped
`send` again and cost more than operation 5's query (bench/api.py)."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from snowfield.api.errors import SendError
from snowfield.api.gate import Gate
from snowfield.api.operation import Operation, endpoint
from snowfield.api.request_body import BODY_METHODS, read_body
from snowfield.api.responses import Endpoint, Headers, SendJson, send_json
from snowfield.api.telemetry import Recorder
from snowfield.errors import RateLimited
from snowfield.routing.table import Match, Route, RouteTable
from snowfield.store.keys import ApiKey

C = TypeVar("C")
UNMATCHED = "(unmatched)"  # the telemetry label of a request no route answers


@dataclass(frozen=True, slots=True)
class Answer:
    """What a route answers with, and the compute units it charges the caller."""

    endpoint: Endpoint
    weight: int


Answers = Mapping[str, Answer]  # a route's answer to each method it allows
_ADMISSION = "snowfield.admission"  # the scope's note of the caller's key and units charged


class RequestSink(Protocol):
    """Takes note of every answered request (the usage log, api/operations/request_log.py)."""

    def record(
        self,
        scope: Scope,
        route: str,
        params: Mapping[str, str],
        status: int,
        started: float,
        key: ApiKey | None,
        credits: int,
    ) -> None: ...


def operation_routes(
    operations: Iterable[Operation[C]],
    context: Callable[[Operation[C], dict[str, Any], ApiKey | None], C],
    errors: SendError,
    *,
    document: bytes,
    document_weight: int,
    respond: SendJson = send_json,
) -> list[Route[Answers]]:
    """A service's routes: one per path, answering each of its operations' methods (a webhook's
    GET, PATCH and DELETE share a path), then its OpenAPI `document` at /openapi.json."""

    async def openapi(
        scope: Scope, send: Send, path: object, key: ApiKey | None, headers: Headers
    ) -> int:
        return await respond(scope, send, document, 200, headers)

    by_path: dict[str, dict[str, Answer]] = {}
    for op in operations:
        answer = Answer(endpoint(op, context, errors, respond), op.weight)
        answers = by_path.setdefault(op.path, {})
        for method in op.methods:
            if method in answers:
                raise ValueError(f"two operations answer {method} {op.path}")
            answers[method] = answer
    routes: list[Route[Answers]] = []
    patterns: list[re.Pattern[str]] = []
    for path, answers in by_path.items():
        # A path that an earlier template matches goes before it: …/tokens/{tokenId}:reindex
        # before …/tokens/{tokenId}, /v1/chains/allBlocks before /v1/chains/{chainId} (the
        # template's parameter would match the whole last segment).
        at = next((i for i, p in enumerate(patterns) if p.match(path)), len(routes))
        routes.insert(at, Route(path, answers, frozenset(answers)))
        patterns.insert(at, compile_path(path)[0])
    document_answer = Answer(openapi, document_weight)
    return [*routes, Route("/openapi.json", {"GET": document_answer, "HEAD": document_answer})]


class Router:
    def __init__(
        self,
        routes: Sequence[Route[Answers]],
        *,
        gate: Gate,
        recorder: Recorder,
        errors: SendError,
        on_shutdown: Callable[[], Awaitable[None]],
        unmatched_weight: int = 1,
        websocket: ASGIApp | None = None,
        redirect_slashes: bool = False,
        requests: RequestSink | None = None,
    ) -> None:
        self.table = RouteTable(routes)
        self.gate = gate
        self.recorder = recorder
        self.errors = errors
        self.on_shutdown = on_shutdown
        self.unmatched_weight = unmatched_weight
        self.websocket = websocket  # answers WebSocket requests (None: the server closes them)
        # Whether a path that only misses or adds a trailing slash redirects (307) to the route,
        # as Starlette's router does.
        self.redirect_slashes = redirect_slashes
        self.requests = requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            if self.websocket is not None:
                await self.websocket(scope, receive, send)
            return
        if Recorder.is_scrape(scope):  # operators scrape freely, in front of the limiter
            await self.recorder.serve(send)
            return
        started = time.perf_counter()
        match = self.table.resolve(scope)
        status = 500
        try:
            status = await self._answer(scope, receive, send, match)
        finally:
            route = match.route
            label = route.path if route is not None and match.allowed else UNMATCHED
            self.recorder.record(label, scope["method"], status, started)
            if self.requests is not None:
                key, charged = scope.get(_ADMISSION, (None, 0))
                route_path = label if label != UNMATCHED else ""
                self.requests.record(scope, route_path, match.params, status, started, key, charged)

    async def _answer(
        self, scope: Scope, receive: Receive, send: Send, match: Match[Answers]
    ) -> int:
        route = match.route
        allowed = route is not None and match.allowed
        answer = route.target[scope["method"]] if route is not None and allowed else None
        weight = answer.weight if answer is not None else self.unmatched_weight
        admission = self.gate.admit_now(scope, weight) or await self.gate.admit(scope, weight)
        headers = admission.headers
        # A refused charge consumes nothing (ratelimit.Limiter).
        charged = 0 if isinstance(admission.refusal, RateLimited) else weight
        scope[_ADMISSION] = (admission.key, charged)
        if admission.refusal is not None:
            return await self.errors(scope, send, admission.refusal, headers)
        if route is None:
            redirect = self.table.redirect(scope) if self.redirect_slashes else None
            if redirect is not None:
                response = RedirectResponse(redirect)
                response.raw_headers += headers
                await response(scope, receive, send)
                return response.status_code
            return await self.errors(scope, send, HTTPException(404), headers)
        if answer is None:  # the path exists, not with this method
            allow = {"allow": ", ".join(sorted(route.methods))}
            return await self.errors(scope, send, HTTPException(405, headers=allow), headers)
        if scope["method"] in BODY_METHODS:
            try:
                await read_body(scope, receive)
            except HTTPException as exc:
                return await self.errors(scope, send, exc, headers)
        return await answer.endpoint(scope, send, match.params, admission.key, headers)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.on_shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return
