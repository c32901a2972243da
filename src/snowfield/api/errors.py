"""The REST error body {message, statusCode, error}: the one map from the error tree to statuses."""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from http import HTTPStatus

import orjson
from starlette.exceptions import HTTPException
from starlette.types import Scope, Send

from snowfield import errors
from snowfield.api.responses import Headers, send_json

log = logging.getLogger("snowfield.api")
# Answers with a service's error body reporting an exception, after the headers given; returns
# the status sent. An HTTPException's own headers (405's `allow`) are the service's to keep.
SendError = Callable[[Scope, Send, BaseException, Headers], Awaitable[int]]

# Most specific first; anything else from the tree is our fault (500).
STATUS: tuple[tuple[type[errors.SnowfieldError], int], ...] = (
    (errors.InvalidParams, 400),
    (errors.InvalidRequest, 400),
    (errors.Conflict, 400),
    (errors.ExecutionReverted, 400),
    (errors.Unauthorized, 401),
    (errors.Forbidden, 403),
    (errors.NotFound, 404),
    (errors.MethodNotFound, 404),
    (errors.Unsupported, 404),
    (errors.RateLimited, 429),
    (errors.Unavailable, 503),
)

# Every status the operations document; the OpenAPI document lists these with the error schema.
ERROR_STATUSES = (400, 401, 403, 404, 429, 500, 502, 503)


def status_of(exc: BaseException) -> int:
    """The HTTP status that reports `exc`."""
    if isinstance(exc, HTTPException):
        return exc.status_code
    for family, status in STATUS:
        if isinstance(exc, family):
            return status
    return 500


def error_body(status: int, message: str) -> dict[str, object]:
    return {"message": message, "statusCode": status, "error": HTTPStatus(status).phrase}


def _describe(exc: BaseException) -> tuple[int, str, dict[str, str]]:
    """Status, message and extra headers reporting `exc`; unexpected exceptions are logged."""
    status = status_of(exc)
    if isinstance(exc, errors.SnowfieldError) and status != 500:
        message = exc.message
    elif isinstance(exc, HTTPException):
        message = exc.detail if status != 404 else "no such route"
    else:
        log.error("unhandled error", exc_info=exc)
        message = "internal server error"
    extra: dict[str, str] = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}
    if isinstance(exc, errors.RateLimited):
        extra["retry-after"] = str(max(1, math.ceil(exc.retry_after)))
    return status, message, extra


async def send_error(scope: Scope, send: Send, exc: BaseException, headers: Headers = ()) -> int:
    """Answers with the error body reporting `exc`; returns the status sent."""
    status, message, extra = _describe(exc)
    more = [*headers, *((k.encode(), v.encode()) for k, v in extra.items())]
    body = orjson.dumps(error_body(status, message))
    return await send_json(scope, send, body, status, more)
