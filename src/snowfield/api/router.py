"""The data service's dispatch: the route resolved once (`RouteTable`), then the operation's
endpoint; unknown paths answer 404 and other methods 405, both in the error shape."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from starlette.exceptions import HTTPException
from starlette.types import Receive, Scope, Send

from snowfield.api.errors import error_response
from snowfield.api.routes import RouteTable

# An endpoint answers one request, given the route's path parameters.
Endpoint = Callable[[Scope, Receive, Send, dict[str, str]], Awaitable[None]]


class Router:
    def __init__(
        self,
        table: RouteTable,
        endpoints: Sequence[Endpoint],
        *,
        on_shutdown: Callable[[], Awaitable[None]],
    ) -> None:
        self.table = table
        self.endpoints = list(endpoints)
        self.on_shutdown = on_shutdown

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # nothing here speaks WebSocket; the server closes the connection
        route = self.table.resolve(scope)
        if route.index is None:
            await error_response(HTTPException(404))(scope, receive, send)
        elif not route.allowed:
            allow = {"allow": ", ".join(sorted(route.methods))}
            await error_response(HTTPException(405), allow)(scope, receive, send)
        else:
            await self.endpoints[route.index](scope, receive, send, route.params)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.on_shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return
