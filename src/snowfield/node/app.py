"""The node's HTTP and WebSocket routes under /ext/..., built from its registry of hosted
chains as avalanchego serves them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from snowfield.node.connections import Connection
from snowfield.node.metrics import NodeMetrics
from snowfield.node.node import Node
from snowfield.node.registry import (
    ChainRegistry,
    EvmRpc,
    EvmWebSocket,
    HostedChain,
)
from snowfield.routing.app import Endpoint, RoutedApp, Routes, endpoint, socket
from snowfield.routing.table import WEBSOCKET, Route, RouteTable, methods, route_path
from snowfield.rpc.dispatch import Dispatcher
from snowfield.rpc.service import ServiceDispatcher

log = logging.getLogger("snowfield.node")
JSON = "application/json"
_JSON_TYPES = ("application/json", "application/json-rpc", "application/jsonrequest")
_GORILLA_TOO_LARGE = b"request too large"  # what _service answers
_TOO_LARGE = orjson.dumps(
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "request too large"}}
)
_EVM_RPC_METHODS = methods("GET", "POST", "PUT", "DELETE")  # POST answers; the rest refuse
_GORILLA_METHODS = methods("GET", "POST", "PUT")
_HEALTH_METHODS = methods("GET", "POST", "PUT", "HEAD")
_WEBSOCKET = frozenset({WEBSOCKET})


def create_node_app(node: Node) -> ASGIApp:
    """The ASGI app of one node; starts and stops the node with the server."""
    metrics = NodeMetrics(node.evm_rpc.calls)
    metrics.gauge(
        "snowfield_chain_height",
        "Height of the C-Chain's last accepted block.",
        lambda: node.c.chain.head.number,
    )
    metrics.gauge(
        "snowfield_mempool_size",
        "Transactions waiting in the C-Chain mempool.",
        lambda: len(node.c.chain.mempool),
    )
    http = HttpLimits(node.settings.max_request_bytes, node.settings.http_write_timeout or None)

    async def health_get(request: Request) -> Response:
        kind = request.path_params.get("kind", "health")
        tags = request.query_params.getlist("tag")
        if kind == "liveness":
            report = node.health.liveness()
        elif kind == "readiness":
            report = node.health.readiness.report(tags)
        elif kind == "health":
            report = node.health.health.report(tags)
        else:
            return _not_found()
        return Response(orjson.dumps(report), 200 if report["healthy"] else 503, media_type=JSON)

    async def health_root(request: Request) -> Response:
        if request.method == "GET":
            return await health_get(request)
        return await _service(request, node.health_rpc.handle_bytes, http)

    async def metrics_route(_: Request) -> Response:
        return PlainTextResponse(metrics.render(), media_type="text/plain; version=0.0.4")

    @contextlib.asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        await node.start()
        try:
            yield
        finally:
            await node.stop()

    node_routes = [
        _gorilla_route("/ext/info", node.info_rpc, http),
        _gorilla_route("/ext/devnet", node.devnet_rpc, http),
        Route("/ext/health", _Served(endpoint(health_root).app), methods("GET", "POST")),
        Route("/ext/health/{kind}", _Served(endpoint(health_get).app), _HEALTH_METHODS),
        Route("/ext/metrics", _Served(endpoint(metrics_route).app)),
    ]
    current = _CurrentRoutes(node.chains, node_routes, http)
    routed = RoutedApp(current, lifespan=lifespan, handlers={404: _not_found_handler})

    async def fast(scope: Scope, receive: Receive, send: Send, extra: Headers) -> bool:
        """Serves the hot paths, the EVM RPC and the chains' gorilla services (platform.issueTx
        & co), without the framework's per-request layers when the request is well formed;
        False when the request is not one of them."""
        if scope["type"] != "http" or scope["method"] != "POST":
            return False
        routes = current.routes if len(node.chains) == current.built else current()
        path = route_path(scope) if scope.get("root_path") else scope["path"]
        route = routes.http.fixed.get(path)  # every chain's path is fixed
        rpc = None if route is None else route.target.rpc
        if rpc is None:
            return False
        if isinstance(rpc, ServiceDispatcher):
            if _content_type(scope) != JSON:
                return False
            await _fast_rpc(rpc, http, receive, send, _GORILLA_TOO_LARGE, extra)
        else:
            if not _json_request(scope):
                return False
            await _fast_rpc(rpc, http, receive, send, extra=extra)
        return True

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if not await fast(scope, receive, send, ()):
            await routed(scope, receive, send)

    # avalanchego answers browsers on any origin (--http-allowed-origins defaults to *).
    cors = CORSMiddleware(
        app, allow_origins=["*"], allow_methods=["GET", "POST"], allow_headers=["content-type"]
    )

    async def entry(scope: Scope, receive: Receive, send: Send) -> None:
        # A request without an Origin header gets no CORS headers but `Vary: Origin`:
        # answered here without the middleware's per-request header objects and send wrapper
        # (-8% server CPU per platform.issueTx, bench/pchain.py).
        if scope["type"] == "http" and not _has_origin(scope):
            if not await fast(scope, receive, send, _VARY_ORIGIN):
                await routed(scope, receive, _vary_origin(send))
            return
        await cors(scope, receive, send)

    return entry


@dataclass(frozen=True, slots=True)
class _Served:
    """A route's answer: `app`, or for a well-formed POST, `rpc` called directly (the EVM's
    JSON-RPC, a chain's gorilla service)."""

    app: ASGIApp
    rpc: Dispatcher | ServiceDispatcher | None = None


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """What every HTTP request to the node is held to: its body's size, and how long it may run
    before it is answered with -32002 `request timed out` (None: no limit)."""

    body: int
    timeout: float | None


class _CurrentRoutes:
    """The node's routes, built from its registry, and built again when the registry grows:
    a CreateChainTx accepted while the server runs starts a chain that must be served."""

    def __init__(
        self, chains: ChainRegistry, node_routes: list[Route[_Served]], http: HttpLimits
    ) -> None:
        self.chains = chains
        self.node_routes = node_routes
        self.http = http
        self.built = -1
        self.routes = self()

    def __call__(self) -> Routes[_Served]:
        if len(self.chains) != self.built:
            self.built = len(self.chains)
            http, websocket = _chain_routes(self.chains, self.http)
            # An unknown chain's socket closes as a policy violation.
            websocket.append(Route("/ext/bc/{chain}/ws", socket(_refuse_ws), _WEBSOCKET))
            indexes = _index_routes(self.chains, self.http)
            self.routes = Routes(
                RouteTable([*http, *indexes, *self.node_routes]), RouteTable(websocket)
            )
        return self.routes


def _chain_paths(chain: HostedChain, suffix: str) -> list[str]:
    """Every path a chain's service answers at: /ext/bc/{name}/{suffix}, /ext/{form}/{suffix}."""
    tail = f"/{suffix}" if suffix else ""
    paths = [f"/ext/bc/{name}{tail}" for name in chain.names]
    return paths + [f"/ext/{form}{tail}" for form in chain.short_forms]


def _chain_routes(
    chains: ChainRegistry, limits: HttpLimits
) -> tuple[list[Route[_Served]], list[Route[Endpoint]]]:
    """The chains' HTTP routes and WebSocket routes."""
    http: list[Route[_Served]] = []
    websocket: list[Route[Endpoint]] = []
    for chain in chains:
        for suffix, service in chain.services.items():
            for path in _chain_paths(chain, suffix):
                if isinstance(service, EvmRpc):
                    served = _Served(endpoint(_evm_rpc_refusal).app, service.dispatcher)
                    http.append(Route(path, served, _EVM_RPC_METHODS))
                elif isinstance(service, EvmWebSocket):
                    websocket.append(Route(path, socket(_evm_ws(service, limits.body)), _WEBSOCKET))
                else:
                    http.append(_gorilla_route(path, service.dispatcher, limits, fast=True))
    return http, websocket


def _index_routes(chains: ChainRegistry, http: HttpLimits) -> list[Route[_Served]]:
    return [
        _gorilla_route(f"/ext/index/{chain.label}/{name}", index.service, http)
        for chain in chains
        for name, index in chain.indexes.items()
    ]


def _gorilla_route(
    path: str, dispatcher: ServiceDispatcher, http: HttpLimits, *, fast: bool = False
) -> Route[_Served]:
    async def handle(request: Request) -> Response:
        return await _service(request, dispatcher.handle_bytes, http)

    return Route(
        path, _Served(endpoint(handle).app, dispatcher if fast else None), _GORILLA_METHODS
    )


async def _evm_rpc_refusal(request: Request) -> Response:
    # POST with a JSON body is served by `_fast_rpc`; here are the refusals.
    if request.method != "POST":
        return PlainTextResponse("method not allowed\n", 405)
    return PlainTextResponse("invalid content type, only application/json is supported\n", 415)


def _not_found() -> Response:
    return PlainTextResponse("404 page not found\n", 404)


async def _not_found_handler(request: Request, exc: Exception) -> Response:
    return _not_found()


async def _refuse_ws(ws: WebSocket) -> None:
    await ws.close(code=1008)


def _evm_ws(service: EvmWebSocket, limit: int) -> Callable[[WebSocket], Awaitable[None]]:
    async def serve(ws: WebSocket) -> None:
        await ws.accept()
        conn = Connection()
        writer = asyncio.create_task(_pump(ws, conn))
        try:
            await _serve_ws(ws, conn, service.dispatcher, limit)
        except WebSocketDisconnect:
            pass
        finally:
            service.hub.drop_connection(conn)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
            with contextlib.suppress(Exception):
                await ws.close()

    return serve


async def _serve_ws(ws: WebSocket, conn: Connection, dispatcher: Dispatcher, limit: int) -> None:
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        body = message.get("bytes") or (message.get("text") or "").encode()
        if len(body) > limit:
            conn.push(_TOO_LARGE)
            continue
        reply = await dispatcher.handle_bytes(body, conn)
        if reply is not None:
            conn.push(reply)
        if conn.overflowed:
            return


def _has_origin(scope: Scope) -> bool:
    # A loop, not any() over a generator: a third of the cost, on every request.
    for name, _ in scope["headers"]:  # noqa: SIM110
        if name == b"origin":
            return True
    return False


def _content_type(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"content-type":
            ctype: str = value.split(b";")[0].strip().lower().decode("latin-1")
            return ctype
    return None


def _json_request(scope: Scope) -> bool:
    ctype = _content_type(scope)
    return ctype is None or ctype in _JSON_TYPES  # geth accepts a request without one


async def _fast_rpc(
    dispatcher: Dispatcher | ServiceDispatcher,
    http: HttpLimits,
    receive: Receive,
    send: Send,
    too_large: bytes = b"",
    extra: Headers = (),
) -> None:
    chunks = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > http.body:
            if too_large:  # gorilla's answer, as Starlette's PlainTextResponse writes it
                await _send(send, 413, too_large, b"text/plain; charset=utf-8", extra)
            else:
                refusal = b"content length too large (%d max)\n" % http.body
                await _send(send, 413, refusal, b"text/plain", extra)
            return
        chunks.append(chunk)
        more = message.get("more_body", False)
    reply = await dispatcher.handle_bytes(b"".join(chunks), timeout=http.timeout)
    await _send(send, 200, reply or b"", b"application/json", extra)


Headers = tuple[tuple[bytes, bytes], ...]
_VARY_ORIGIN: Headers = ((b"vary", b"Origin"),)


def _vary_origin(send: Send) -> Send:
    async def with_vary(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", ()), *_VARY_ORIGIN]
        await send(message)

    return with_vary


async def _send(send: Send, status: int, body: bytes, ctype: bytes, extra: Headers = ()) -> None:
    headers = [(b"content-type", ctype), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _service(request: Request, handle: Any, http: HttpLimits) -> Response:
    """avalanchego's gorilla/rpc transport rules: POST, JSON content type, HTTP 200."""
    if request.method != "POST":
        return PlainTextResponse(f"rpc: POST method required, received {request.method}", 405)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        return PlainTextResponse(f"rpc: unrecognized Content-Type: {ctype}", 415)
    body = await _read_limited(request, http.body)
    if body is None:
        return PlainTextResponse("request too large", 413)
    return Response(await handle(body, timeout=http.timeout), media_type=JSON)


async def _read_limited(request: Request, limit: int) -> bytes | None:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def _pump(ws: WebSocket, conn: Connection) -> None:
    while True:
        message = await conn.queue.get()
        await ws.send_text(message.decode())
