"""The HTTP server (uvicorn) as every command runs it: limits on connections, request heads and
slow clients, which proxies to trust, and answers in the service's own shape to requests the
server cannot parse.

uvicorn has no header-read timeout and answers unparsable requests in plain text, so its
httptools protocol is subclassed here. It also writes each answer's head and body with a
system call each; `CoalescingTransport` joins the writes of one turn of the event loop into
one. Only cli and testing import this module: it owns the server library for both."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# (status, message) -> (content type, body) in the service's error shape.
LINGER_SECONDS = 2.0
ErrorRenderer = Callable[[int, str], tuple[bytes, bytes]]


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """What one connection may do before the application sees a request."""

    read_header_timeout: float = 30.0
    max_header_bytes: int = 16 * 1024
    max_connections: int = 1000
    forwarded_allow_ips: str = ""  # proxies whose X-Forwarded-For names the client; none


DEFAULT_LIMITS = HttpLimits()


def plain_text(status: int, message: str) -> tuple[bytes, bytes]:
    """Go's net/http answer (the node's): the status line as text."""
    return b"text/plain; charset=utf-8", f"{status} {HTTPStatus(status).phrase}".encode()


class _Refused(Exception):
    """Raised in a parser callback to refuse the request with `status`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class CoalescingTransport:
    """A transport whose writes in one turn of the event loop leave in one system call.

    uvicorn writes a response's head as soon as the app sends it and its body at the next
    message, so a small answer left as two TCP segments, and the client woke up twice (each
    wake-up is an interrupt to another core; on this project's 2-core VMs it showed as 13% of
    the server's CPU, in `sock_def_readable`, under bench/api.py's load). The writes are kept
    and handed to the socket together (`writelines`: one vectored write, no copy) when the
    loop runs its ready callbacks, right after the task that wrote them yields; at once when
    they reach `FLUSH_BYTES`, so that a streamed body still fills the socket's buffer and
    uvicorn's flow control (pause_writing, drain) holds it back as before. Measured with
    wrk on one core (bench/api.py's apps, 2 rounds): the hello world 22.0k -> 25.2k req/s,
    operation 5 9.6k -> 11.5k req/s. Everything but writing and closing is the transport's own.
    """

    FLUSH_BYTES = 64 * 1024
    __slots__ = ("_loop", "_pending", "_size", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] | None = None
        self._size = 0

    @property
    def transport(self) -> asyncio.Transport:
        """The transport underneath (a WebSocket protocol takes it over)."""
        self.flush()
        return self._transport

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if self._pending is None:
            self._pending = []
            self._size = 0
            self._loop.call_soon(self.flush)
        self._pending.append(bytes(data) if not isinstance(data, bytes) else data)
        self._size += len(data)
        if self._size >= self.FLUSH_BYTES:
            self.flush()  # the callback scheduled then finds nothing left

    def writelines(self, lines: Iterable[bytes]) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        pending, self._pending = self._pending, None
        if not pending or self._transport.is_closing():
            return
        if len(pending) == 1:
            self._transport.write(pending[0])
        else:
            self._transport.writelines(pending)

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_write_buffer_size(self) -> int:
        waiting = self._size if self._pending else 0
        return waiting + self._transport.get_write_buffer_size()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a bounded request head, a header-read deadline and
    coalesced writes."""

    limits = HttpLimits()
    render: ErrorRenderer = staticmethod(plain_text)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0
        self._raw_head_bytes = 0
        self._in_head = False
        self._head_timer: asyncio.TimerHandle | None = None
        self._refusal: _Refused | None = None
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        coalescing = CoalescingTransport(transport, asyncio.get_running_loop())
        super().connection_made(coalescing)  # type: ignore[arg-type]
        self._start_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # drained until the lingering close
        super().data_received(data)
        # The parser holds an unfinished header line without calling back: count raw bytes.
        if self._in_head and not self.transport.is_closing():
            self._raw_head_bytes += len(data)
            if self._raw_head_bytes > self.limits.max_header_bytes:
                self._refuse(431, "request header fields too large")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._start_head()

    def on_url(self, url: bytes) -> None:
        self._count(len(url), 414, "request URI too long")
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value), 431, "request header fields too large")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._stop_timer()
        super().on_headers_complete()

    def handle_websocket_upgrade(self) -> None:
        # The WebSocket protocol writes its frames to the socket's transport itself.
        if isinstance(self.transport, CoalescingTransport):
            self.transport = self.transport.transport
        super().handle_websocket_upgrade()
        # The transport now feeds the WebSocket protocol; this one is left behind in a cycle
        # with its parser (which holds bound methods of it) and, through it, keeps the
        # transport and its buffers alive until a full collection, which the node's tuned
        # GC runs rarely: ~50 kB per closed WebSocket connection. Break the cycle so that
        # refcounting frees it when the WebSocket protocol lets the transport go.
        self.parser = None  # type: ignore[assignment]

    def send_400_response(self, msg: str) -> None:
        refusal, self._refusal = self._refusal, None
        if refusal is not None:
            self._refuse(refusal.status, refusal.message)
        else:
            self._refuse(400, "invalid HTTP request")

    def _count(self, size: int, status: int, message: str) -> None:
        self._head_bytes += size
        if self._head_bytes > self.limits.max_header_bytes:
            # Raised inside the parser: it stops, and uvicorn calls send_400_response.
            self._refusal = _Refused(status, message)
            raise self._refusal

    def _start_head(self) -> None:
        if self._in_head:
            return
        self._in_head = True
        self._head_bytes = self._raw_head_bytes = 0
        self._stop_timer()
        timeout = self.limits.read_header_timeout
        if timeout > 0:
            self._head_timer = self.loop.call_later(timeout, self._head_timed_out)

    def _stop_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            self._refuse(408, "request header read timed out")

    def _refuse(self, status: int, message: str) -> None:
        """Answers `status` in the service's shape and closes the connection."""
        if self.transport.is_closing() or self._refused:
            return
        self._refused = True
        self._stop_timer()
        ctype, body = self.render(status, message)
        self.transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: %s\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s"
            % (status, HTTPStatus(status).phrase.encode(), ctype, len(body), body)
        )
        # A lingering close, as Go's server does: closing with the client's bytes unread
        # would reset the connection and could destroy the answer before it is read.
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)


def guarded_protocol(limits: HttpLimits, render: ErrorRenderer) -> type[GuardedProtocol]:
    """The protocol class for one server: its limits and its error shape."""
    return type("Guarded", (GuardedProtocol,), {"limits": limits, "render": staticmethod(render)})


def server_config(
    app: Any,
    *,
    host: str,
    port: int,
    limits: HttpLimits,
    render: ErrorRenderer = plain_text,
    **extra: Any,
) -> uvicorn.Config:
    """uvicorn's configuration with our limits; the client's address is the socket's unless
    a trusted proxy forwards it."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        # Requests are counted in each service's own metrics; uvicorn's access line (never
        # shown at this level) still formats its arguments per response. No `server: uvicorn`
        # header: Go's net/http, which the node and the data service stand for, sends none.
        access_log=False,
        server_header=False,
        lifespan="on",
        http=guarded_protocol(limits, render),
        limit_concurrency=limits.max_connections or None,
        proxy_headers=bool(limits.forwarded_allow_ips),
        forwarded_allow_ips=limits.forwarded_allow_ips or None,
        **extra,
    )
