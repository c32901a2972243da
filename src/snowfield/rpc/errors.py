"""The one table from snowfield errors to JSON-RPC error codes (geth conventions)."""

from __future__ import annotations

from typing import Any

from snowfield.errors import (
    ExecutionReverted,
    InvalidRequest,
    MethodNotFound,
    SimulationError,
    SnowfieldError,
)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000
RESPONSE_TOO_LARGE = -32003
REQUEST_TIMED_OUT = -32002  # geth's errcodeTimeout, "request timed out"
REVERTED = 3
VM_ERROR = -32015  # a simulated call's failure other than a revert (eth_simulateV1)
# geth's eth_simulateV1 codes, by SimulationError.reason.
SIMULATION_CODES = {
    "nonce too low": -38010,
    "nonce too high": -38011,
    "fee cap too low": -38012,
    "intrinsic gas": -38013,
    "insufficient funds": -38014,
    "block gas limit": -38015,
    "block number": -38020,
    "block timestamp": -38021,
    "init code size": -38025,
    "client limit": -38026,
    "invalid params": INVALID_PARAMS,
}


class ParamError(SnowfieldError):
    """Raised by the dispatcher when an argument does not decode (code -32602)."""


def error_object(exc: BaseException) -> dict[str, Any]:
    """The JSON-RPC error member for an exception raised while serving a call."""
    if isinstance(exc, ExecutionReverted):
        return {"code": REVERTED, "message": exc.message, "data": exc.data}
    if isinstance(exc, SimulationError):
        return {"code": SIMULATION_CODES.get(exc.reason, SERVER_ERROR), "message": exc.message}
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
