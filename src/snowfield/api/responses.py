"""JSON responses via orjson; big integers leave as strings before they get here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Scope, Send

from snowfield.store.keys import ApiKey

Headers = Sequence[tuple[bytes, bytes]]
# An endpoint answers one admitted request: scope, send, path parameters, the caller's key
# and the headers its answer carries; it returns the status it sent.
Endpoint = Callable[[Scope, Send, dict[str, str], ApiKey | None, Headers], Awaitable[int]]


class JsonResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


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
