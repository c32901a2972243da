"""Request bodies (POST, PUT, PATCH and DELETE operations): read by the router (bounded),
parsed as JSON here.

Public API: `MAX_BODY`, `BODY_METHODS`, `read_body(scope, receive)`, `request_json(scope)`.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.exceptions import HTTPException
from starlette.types import Receive, Scope

from snowfield.errors import InvalidParams

MAX_BODY = 1024 * 1024  # a Warp message is at most 256 KiB; hex doubles it
# The methods whose requests may carry a body (the real service's DELETE of a webhook's
# addresses sends one).
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


async def read_body(scope: Scope, receive: Receive) -> None:
    """Reads the whole body into the request's state; 413 past MAX_BODY."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise HTTPException(413, f"request body larger than {MAX_BODY} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    scope.setdefault("state", {})["body"] = b"".join(chunks)


def request_json(scope: Scope) -> dict[str, Any]:
    """The body as a JSON object; InvalidParams when it is not one."""
    raw = scope.get("state", {}).get("body", b"")
    try:
        value = orjson.loads(raw) if raw else {}
    except orjson.JSONDecodeError:
        raise InvalidParams("Could not decode request body") from None
    if not isinstance(value, dict):
        raise InvalidParams("Could not decode request body")
    return value
