"""An ASGI app over route tables that answers as a Starlette application does: 404, 405 with
`Allow`, the trailing-slash redirect, WebSocket refusal, lifespan and Starlette's error
middlewares. The apps that speak other services' protocols use it (the node, the signature
aggregator); endpoints are Starlette's request and WebSocket handlers."""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from starlette.exceptions import HTTPException
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import request_response, websocket_session
from starlette.types import ASGIApp, ExceptionHandler, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketClose

from snowfield.routing.table import RouteTable

Lifespan = Callable[[], contextlib.AbstractAsyncContextManager[None]]


class Served(Protocol):
    """What a route of a RoutedApp answers with: an ASGI app."""

    @property
    def app(self) -> ASGIApp: ...


S = TypeVar("S", bound=Served)


@dataclass(frozen=True, slots=True)
class Endpoint:
    app: ASGIApp


def endpoint(handler: Callable[[Request], Awaitable[Response]]) -> Endpoint:
    """A request handler as a route's answer (exceptions go to the app's handlers)."""
    return Endpoint(request_response(handler))


def socket(handler: Callable[[WebSocket], Awaitable[None]]) -> Endpoint:
    """A WebSocket handler as a route's answer."""
    return Endpoint(websocket_session(handler))


@dataclass(frozen=True, slots=True)
class Routes(Generic[S]):
    """An app's routes: HTTP requests resolve in `http`, WebSocket requests in `websocket`."""

    http: RouteTable[S]
    websocket: RouteTable[Endpoint]


class RoutedApp(Generic[S]):
    """Answers through the routes `routes()` gives (asked per request, so a table may be
    replaced while the app serves), inside Starlette's error middlewares."""

    def __init__(
        self,
        routes: Callable[[], Routes[S]],
        *,
        lifespan: Lifespan | None = None,
        handlers: Mapping[Any, ExceptionHandler] | None = None,
    ) -> None:
        self.routes = routes
        self.lifespan = lifespan
        self._app = ServerErrorMiddleware(ExceptionMiddleware(self._dispatch, handlers=handlers))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        await self._app(scope, receive, send)

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        routes = self.routes()
        http = scope["type"] == "http"
        match = routes.http.resolve(scope) if http else routes.websocket.resolve(scope)
        if match.route is None:
            redirect = routes.http.redirect(scope) if http else None
            if redirect is not None:
                await RedirectResponse(redirect)(scope, receive, send)
            elif http:
                raise HTTPException(404)
            else:
                await WebSocketClose()(scope, receive, send)
            return
        if not match.allowed:
            raise HTTPException(405, headers={"Allow": ", ".join(match.route.methods)})
        scope["path_params"] = dict(match.params)
        await match.route.target.app(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """Starts and stops the app's resources with the server, reporting a failure as
        Starlette does."""
        started = False
        await receive()
        try:
            async with self.lifespan() if self.lifespan else contextlib.nullcontext():
                await send({"type": "lifespan.startup.complete"})
                started = True
                await receive()
        except BaseException:
            failed = "lifespan.shutdown.failed" if started else "lifespan.startup.failed"
            await send({"type": failed, "message": traceback.format_exc()})
            raise
        await send({"type": "lifespan.shutdown.complete"})
