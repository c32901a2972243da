"""JSON responses via orjson; big integers leave as strings before they get here."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Scope, Send


class JsonResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


async def send_json(scope: Scope, send: Send, body: bytes, status: int = 200) -> None:
    """A JSON answer straight to the ASGI server (a HEAD request gets the headers only)."""
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
