"""The one error tree of snowfield; wire-neutral, mapped to JSON-RPC and REST at the edges."""

from __future__ import annotations


class SnowfieldError(Exception):
    """Raised for every failure snowfield reports on purpose; the base of the tree."""

    def __init__(self, message: str, *, data: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


class NotFound(SnowfieldError):
    """Raised when a requested block, transaction, container or other resource does not exist."""


class InvalidParams(SnowfieldError):
    """Raised when a caller's argument is malformed or out of range."""

    def __init__(self, message: str, *, index: int | None = None, data: object = None) -> None:
        super().__init__(message, data=data)
        self.index = index


class InvalidRequest(SnowfieldError):
    """Raised when a request envelope is malformed (not a call, wrong version, too large)."""


class MethodNotFound(SnowfieldError):
    """Raised when a called method does not exist or is not enabled."""


class Conflict(SnowfieldError):
    """Raised when a request contradicts current state (nonce too low, already known, ...)."""


class ExecutionReverted(SnowfieldError):
    """Raised when EVM execution reverted; `data` carries the revert bytes as 0x-hex."""


class SimulationError(SnowfieldError):
    """Raised when eth_simulateV1 cannot simulate its blocks; `reason` names geth's case
    ("nonce too low", "insufficient funds", "block number", "client limit", ...)."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class Unavailable(SnowfieldError):
    """Raised when a dependency (node, database, peer) cannot serve the request now."""


class Unsupported(SnowfieldError):
    """Raised when a feature exists in the protocol but this node does not provide it."""


class Unauthorized(SnowfieldError):
    """Raised when credentials are required but missing or unknown."""


class Forbidden(SnowfieldError):
    """Raised when valid credentials lack the privilege for the request."""


class RateLimited(SnowfieldError):
    """Raised when a client exceeded its request budget; `retry_after` is in seconds."""

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after
