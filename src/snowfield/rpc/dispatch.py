"""A JSON-RPC 2.0 dispatcher in geth's manner: positional params, batches, notifications."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from snowfield.errors import InvalidParams, MethodNotFound, SnowfieldError
from snowfield.rpc.errors import (
    INVALID_REQUEST,
    PARSE_ERROR,
    REQUEST_TIMED_OUT,
    RESPONSE_TOO_LARGE,
    ParamError,
    error_object,
)
from snowfield.rpc.timeouts import TIMED_OUT_MESSAGE, RequestTimedOut, remaining, within

log = logging.getLogger("snowfield.rpc")

Parser = Callable[[Any], Any]
_MISSING = object()


@dataclass(frozen=True, slots=True)
class Param:
    """One positional argument: its decoder and, when optional, its default."""

    name: str
    parse: Parser
    default: Any = _MISSING

    @property
    def required(self) -> bool:
        return self.default is _MISSING


@dataclass(frozen=True, slots=True)
class Method:
    name: str
    handler: Callable[..., Any]
    params: tuple[Param, ...] = ()

    def bind(self, params: Any) -> list[Any]:
        """Decodes raw params into handler arguments, with geth's -32602 messages."""
        if params is None:
            params = []
        if not isinstance(params, list):
            raise ParamError("non-array args")
        if len(params) > len(self.params):
            raise ParamError(f"too many arguments, want at most {len(self.params)}")
        args = []
        for index, spec in enumerate(self.params):
            raw = params[index] if index < len(params) else None
            if raw is None:
                if spec.required:
                    raise ParamError(f"missing value for required argument {index}")
                args.append(spec.default)
                continue
            try:
                args.append(spec.parse(raw))
            except (InvalidParams, ValueError, TypeError, KeyError) as exc:
                text = exc.message if isinstance(exc, SnowfieldError) else str(exc)
                raise ParamError(f"invalid argument {index}: {text}") from exc
        return args


@dataclass(frozen=True, slots=True)
class Limits:
    batch_items: int = 40
    request_bytes: int = 5 * 1024 * 1024
    batch_response_bytes: int = 25 * 1024 * 1024


class Dispatcher:
    """Routes calls by wire name; serves single calls and batches."""

    def __init__(self, methods: Iterable[Method] = (), limits: Limits | None = None) -> None:
        self.methods: dict[str, Method] = {}
        self.limits = limits or Limits()
        self.calls: Counter[str] = Counter()
        for method in methods:
            self.add(method)

    def add(self, method: Method) -> None:
        self.methods[method.name] = method

    async def handle_bytes(
        self, body: bytes, context: Any = None, *, timeout: float | None = None
    ) -> bytes | None:
        """Serves one HTTP/WS message; None when nothing is to be sent back. Calls still
        running after `timeout` seconds are answered -32002 `request timed out`."""
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:
            return _dump(_error(None, PARSE_ERROR, "parse error"))
        reply = await self.handle(request, context, timeout=timeout)
        return None if reply is None else _dump(reply)

    async def handle(
        self, request: Any, context: Any = None, *, timeout: float | None = None
    ) -> Any:
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        if isinstance(request, list):
            return await self._batch(request, context, deadline)
        return await self._timed(request, context, deadline)

    async def _timed(
        self, call: Any, context: Any, deadline: float | None
    ) -> dict[str, Any] | None:
        try:
            return await within(self._single(call, context), remaining(deadline))
        except RequestTimedOut:
            return _timed_out(call)

    async def _batch(self, calls: list[Any], context: Any, deadline: float | None) -> Any:
        if not calls:
            return _error(None, INVALID_REQUEST, "empty batch")
        if len(calls) > self.limits.batch_items:
            first = calls[0].get("id") if isinstance(calls[0], dict) else None
            return [_error(first, INVALID_REQUEST, "batch too large")]
        replies: list[dict[str, Any]] = []
        size = 0
        for index, call in enumerate(calls):
            left = remaining(deadline)
            try:
                if left == 0:
                    raise RequestTimedOut(TIMED_OUT_MESSAGE)
                reply = await within(self._single(call, context), left)
            except RequestTimedOut:
                # As geth: once the deadline passes, every call not answered yet gets the error.
                late = (_timed_out(c) for c in calls[index:])
                replies.extend(r for r in late if r is not None)
                break
            if reply is None:
                continue
            size += len(_dump(reply))
            if size > self.limits.batch_response_bytes:
                reply = _error(reply.get("id"), RESPONSE_TOO_LARGE, "response too large")
            replies.append(reply)
        return replies or None

    async def _single(self, call: Any, context: Any) -> dict[str, Any] | None:
        if not isinstance(call, dict) or not isinstance(call.get("method"), str):
            ident = call.get("id") if isinstance(call, dict) else None
            return _error(ident, INVALID_REQUEST, "invalid request")
        is_notification = "id" not in call
        ident = call.get("id")
        try:
            result = await self.invoke(call["method"], call.get("params"), context)
        except Exception as exc:  # every failure becomes an error object, never a crash
            if not isinstance(exc, SnowfieldError):
                log.exception("method %s failed", call["method"])
            return (
                None
                if is_notification
                else {"jsonrpc": "2.0", "id": ident, "error": error_object(exc)}
            )
        if is_notification:
            return None
        return {"jsonrpc": "2.0", "id": ident, "result": result}

    async def invoke(self, name: str, params: Any, context: Any = None) -> Any:
        method = self.methods.get(name)
        self.calls[name if method is not None else "unknown"] += 1
        if method is None:
            raise MethodNotFound(f"the method {name} does not exist/is not available")
        args = method.bind(params)
        if context is not None and getattr(method.handler, "wants_context", False):
            args.append(context)
        result = method.handler(*args)
        if inspect.isawaitable(result):
            result = await result
        return result


def wants_context(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a handler that receives the connection (for subscriptions) as its last argument."""
    fn.wants_context = True  # type: ignore[attr-defined]
    return fn


def _timed_out(call: Any) -> dict[str, Any] | None:
    """The -32002 answer to a call cut off by the deadline (none to a notification)."""
    if not isinstance(call, dict) or "id" not in call:
        return None
    return _error(call["id"], REQUEST_TIMED_OUT, TIMED_OUT_MESSAGE)


def _error(ident: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _dump(obj: Any) -> bytes:
    return orjson.dumps(obj)


AsyncHandler = Callable[..., Awaitable[Any]]
