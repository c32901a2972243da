"""JSON answers straight to the ASGI server; big integers leave as strings before they get here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

from starlette.types import Scope, Send

from snowfield.store.keys import ApiKey

Headers = Sequence[tuple[bytes, bytes]]
# An endpoint answers one admitted request: scope, send, path parameters, the caller's key
# and the headers its answer carries; it returns the status it sent.
Endpoint = Callable[[Scope, Send, Mapping[str, str], ApiKey | None, Headers], Awaitable[int]]
# Sends a JSON body with a status after the headers given; returns the status sent.
SendJson = Callable[[Scope, Send, bytes, int, Headers], Awaitable[int]]


async def send_json(
    scope: Scope,
    send: Send,
    body: bytes,
    status: int = 200,
    headers: Headers = (),
) -> int:
    """A JSON answer straight to the ASGI server (a HEAD request gets the headers only);
    returns the status sent."""
    start = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
        *headers,
    ]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
    return status


async def send_json_length_first(
    scope: Scope,
    send: Send,
    body: bytes,
    status: int = 200,
    headers: Headers = (),
    *,
    own: Headers = (),
) -> int:
    """`send_json` in the order Starlette's JSONResponse writes: the response's `own` headers,
    content-length, content-type, then those added on the way out (`headers`). The metrics
    service began as a Starlette app, and its answers keep their bytes."""
    start = [
        *own,
        (b"content-length", b"%d" % len(body)),
        (b"content-type", b"application/json"),
        *headers,
    ]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
    return status
