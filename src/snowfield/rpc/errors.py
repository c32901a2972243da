"""The one table from snowfield errors to JSON-RPC error codes (geth conventions)."""

from __future__ import annotations

from typing import Any

from snowfield.errors import (
    ExecutionReverted,
    InvalidRequest,
    MethodNotFound,
    SnowfieldError,
)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000
RESPONSE_TOO_LARGE = -32003
REVERTED = 3


class ParamError(SnowfieldError):
    """Raised by the dispatcher when an argument does not decode (code -32602)."""


def error_object(exc: BaseException) -> dict[str, Any]:
    """The JSON-RPC error member for an exception raised while serving a call."""
    if isinstance(exc, ExecutionReverted):
        return {"code": REVERTED, "message": exc.message, "data": exc.data}
    if isinstance(exc, ParamError):
        return {"code": INVALID_PARAMS, "message": exc.message}
    if isinstance(exc, MethodNotFound):
        return {"code": METHOD_NOT_FOUND, "message": exc.message}
    if isinstance(exc, InvalidRequest):
        return {"code": INVALID_REQUEST, "message": exc.message}
    if isinstance(exc, SnowfieldError):
        err: dict[str, Any] = {"code": SERVER_ERROR, "message": exc.message}
        if exc.data is not None:
            err["data"] = exc.data
        return err
    return {"code": INTERNAL_ERROR, "message": "internal error"}
