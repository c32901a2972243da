"""The data service's front door: one ASGI callable that resolves the route once
(`RouteTable`), passes the gate (key, rate limit), answers with the operation's endpoint and
records the request for /metrics. Unknown paths answer 404 and other methods 405, both in the
error shape and with the rate-limit headers, like every answer.

These steps are plain calls rather than nested middlewares: each middleware layer wrapped
`send` again and cost more than operation 5's query (bench/api.py)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence

from starlette.exceptions import HTTPException
from starlette.types import Receive, Scope, Send

from snowfield.api.errors import send_error
from snowfield.api.gate import Gate
from snowfield.api.request_body import read_body
from snowfield.api.responses import Endpoint
from snowfield.api.routes import Resolved, RouteTable
from snowfield.api.telemetry import Recorder


class Router:
    def __init__(
        self,
        table: RouteTable,
        endpoints: Sequence[Endpoint],
        *,
        gate: Gate,
        recorder: Recorder,
        on_shutdown: Callable[[], Awaitable[None]],
    ) -> None:
        self.table = table
        self.endpoints = list(endpoints)
        self.gate = gate
        self.recorder = recorder
        self.on_shutdown = on_shutdown

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # nothing here speaks WebSocket; the server closes the connection
        if Recorder.is_scrape(scope):  # operators scrape freely, in front of the limiter
            await self.recorder.serve(send)
            return
        started = time.perf_counter()
        route = self.table.resolve(scope)
        status = 500
        try:
            status = await self._answer(scope, receive, send, route)
        finally:
            self.recorder.record(route.label, scope["method"], status, started)

    async def _answer(self, scope: Scope, receive: Receive, send: Send, route: Resolved) -> int:
        admission = await self.gate.admit(scope, route.weight)
        headers = admission.headers
        if admission.refusal is not None:
            return await send_error(scope, send, admission.refusal, headers)
        if route.index is None:
            return await send_error(scope, send, HTTPException(404), headers)
        if not route.allowed:
            allow = (b"allow", ", ".join(sorted(route.methods)).encode())
            return await send_error(scope, send, HTTPException(405), [*headers, allow])
        if scope["method"] == "POST":
            try:
                await read_body(scope, receive)
            except HTTPException as exc:
                return await send_error(scope, send, exc, headers)
        endpoint = self.endpoints[route.index]
        return await endpoint(scope, send, route.params, admission.key, headers)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.on_shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return
