"""The node's HTTP and WebSocket routes under /ext/..., as avalanchego serves them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from snowfield.node.metrics import NodeMetrics
from snowfield.node.node import Node
from snowfield.node.subscriptions import Connection

log = logging.getLogger("snowfield.node")
JSON = "application/json"
_JSON_TYPES = ("application/json", "application/json-rpc", "application/jsonrequest")


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
    chain_names = {"C", node.ids.c_chain}
    limit = node.settings.max_request_bytes

    def known_chain(request: Request) -> bool:
        return request.path_params["chain"] in chain_names

    async def evm_rpc(request: Request) -> Response:
        # POST with a JSON body is served by `fast_rpc` below; here are the refusals.
        if not known_chain(request):
            return PlainTextResponse("404 page not found\n", 404)
        if request.method != "POST":
            return PlainTextResponse("method not allowed\n", 405)
        return PlainTextResponse("invalid content type, only application/json is supported\n", 415)

    async def evm_ws(ws: WebSocket) -> None:
        if ws.path_params["chain"] not in chain_names:
            await ws.close(code=1008)
            return
        await ws.accept()
        conn = Connection()
        writer = asyncio.create_task(_pump(ws, conn))
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                body = message.get("bytes") or (message.get("text") or "").encode()
                if len(body) > limit:
                    conn.push(
                        orjson.dumps(
                            {
                                "jsonrpc": "2.0",
                                "id": None,
                                "error": {"code": -32600, "message": "request too large"},
                            }
                        )
                    )
                    continue
                reply = await node.evm_rpc.handle_bytes(body, conn)
                if reply is not None:
                    conn.push(reply)
                if conn.overflowed:
                    break
        except WebSocketDisconnect:
            pass
        finally:
            node.c.hub.drop_connection(conn)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
            with contextlib.suppress(Exception):
                await ws.close()

    async def admin(request: Request) -> Response:
        if request.path_params["chain"] not in chain_names:
            return PlainTextResponse("404 page not found\n", 404)
        return await _service(request, node.admin_rpc.handle_bytes, limit)

    async def index(request: Request) -> Response:
        if node.index is None:
            return PlainTextResponse("404 page not found\n", 404)
        return await _service(request, node.index.service.handle_bytes, limit)

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
            return PlainTextResponse("404 page not found\n", 404)
        return Response(orjson.dumps(report), 200 if report["healthy"] else 503, media_type=JSON)

    async def health_root(request: Request) -> Response:
        if request.method == "GET":
            return await health_get(request)
        return await _service(request, node.health_rpc.handle_bytes, limit)

    async def metrics_route(_: Request) -> Response:
        return PlainTextResponse(metrics.render(), media_type="text/plain; version=0.0.4")

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await node.start()
        try:
            yield
        finally:
            await node.stop()

    routes = [
        Route("/ext/bc/{chain}/rpc", evm_rpc, methods=["GET", "POST", "PUT", "DELETE"]),
        WebSocketRoute("/ext/bc/{chain}/ws", evm_ws),
        Route("/ext/bc/{chain}/admin", admin, methods=["GET", "POST", "PUT"]),
        Route("/ext/index/C/block", index, methods=["GET", "POST", "PUT"]),
        Route("/ext/health", health_root, methods=["GET", "POST"]),
        Route("/ext/health/{kind}", health_get, methods=["GET", "POST", "PUT", "HEAD"]),
        Route("/ext/metrics", metrics_route),
    ]
    starlette = Starlette(routes=routes, lifespan=lifespan)
    rpc_paths = {f"/ext/bc/{name}/rpc" for name in chain_names}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        # The EVM RPC is the hot path: served without the framework's per-request layers.
        if (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"] in rpc_paths
            and _json_request(scope)
        ):
            await _fast_rpc(node, limit, receive, send)
            return
        await starlette(scope, receive, send)

    # avalanchego answers browsers on any origin (--http-allowed-origins defaults to *); a
    # request without an Origin header passes straight through.
    return CORSMiddleware(
        app, allow_origins=["*"], allow_methods=["GET", "POST"], allow_headers=["content-type"]
    )


def _json_request(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-type":
            ctype = value.split(b";")[0].strip().lower().decode("latin-1")
            return ctype in _JSON_TYPES
    return True  # geth accepts a request without a content type


async def _fast_rpc(node: Node, limit: int, receive: Receive, send: Send) -> None:
    chunks = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            await _send(send, 413, b"content length too large (%d max)\n" % limit, b"text/plain")
            return
        chunks.append(chunk)
        more = message.get("more_body", False)
    reply = await node.evm_rpc.handle_bytes(b"".join(chunks))
    await _send(send, 200, reply or b"", b"application/json")


async def _send(send: Send, status: int, body: bytes, ctype: bytes) -> None:
    headers = [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _service(request: Request, handle: Any, limit: int) -> Response:
    """avalanchego's gorilla/rpc transport rules: POST, JSON content type, HTTP 200."""
    if request.method != "POST":
        return PlainTextResponse(f"rpc: POST method required, received {request.method}", 405)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        return PlainTextResponse(f"rpc: unrecognized Content-Type: {ctype}", 415)
    body = await _read_limited(request, limit)
    if body is None:
        return PlainTextResponse("request too large", 413)
    return Response(await handle(body), media_type=JSON)


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
