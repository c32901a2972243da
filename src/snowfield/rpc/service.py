"""JSON-RPC in avalanchego's manner (gorilla/rpc): `service.method`, one object param,
errors as -32000 with `data: null`, HTTP 200 even for errors, no batches."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import orjson

from snowfield.errors import SnowfieldError
from snowfield.rpc.errors import REQUEST_TIMED_OUT
from snowfield.rpc.timeouts import TIMED_OUT_MESSAGE, RequestTimedOut, within

log = logging.getLogger("snowfield.rpc")

ServiceHandler = Callable[[dict[str, Any]], Any]
F = TypeVar("F", bound=Callable[..., Any])
_WIRE_NAME = "__wire_name__"
UNMARSHAL = (
    "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
    "See documentation for example calls"
)


def wire_name(name: str) -> Callable[[F], F]:
    """Binds a service method to its wire name (`service.method`) where it is defined."""

    def mark(fn: F) -> F:
        setattr(fn, _WIRE_NAME, name)
        return fn

    return mark


def named_handlers(service: object) -> dict[str, ServiceHandler]:
    """The bound methods of `service` marked with `wire_name`, by their wire names."""
    found: dict[str, ServiceHandler] = {}
    for attr, member in inspect.getmembers(type(service), inspect.isfunction):
        name = getattr(member, _WIRE_NAME, None)
        if name is not None:
            found[name] = getattr(service, attr)
    return found


class ServiceDispatcher:
    """Serves the methods of avalanchego-style services registered by full name."""

    def __init__(
        self, methods: Mapping[str, ServiceHandler], aliases: Mapping[str, str] = {}
    ) -> None:
        self.methods = dict(methods)
        self.aliases = dict(aliases)
        self.services = {name.split(".", 1)[0] for name in self.methods}

    async def handle_bytes(self, body: bytes, *, timeout: float | None = None) -> bytes:
        """Serves one request; one still running after `timeout` seconds is answered -32002
        `request timed out` (in gorilla's error shape)."""
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:
            return _reply(None, error=(-32700, "parse error"))
        if not isinstance(request, dict):
            return _reply(None, error=(-32700, "parse error"))
        ident = request.get("id")
        if request.get("jsonrpc") != "2.0":
            return _reply(ident, error=(-32600, "jsonrpc must be 2.0"), data=_echo(request))
        try:
            result = await within(
                self.invoke(request.get("method"), request.get("params")), timeout
            )
        except RequestTimedOut:
            return _reply(ident, error=(REQUEST_TIMED_OUT, TIMED_OUT_MESSAGE))
        except SnowfieldError as exc:
            return _reply(ident, error=(-32000, exc.message))
        except Exception:
            log.exception("service method %s failed", request.get("method"))
            return _reply(ident, error=(-32000, "internal error"))
        return _reply(ident, result=result)

    async def invoke(self, name: Any, params: Any) -> Any:
        if not isinstance(name, str):
            raise SnowfieldError('rpc: service/method request ill-formed: ""')
        name = self.aliases.get(name, name)
        if "." not in name:
            raise SnowfieldError(f'rpc: service/method request ill-formed: "{name}"')
        service, method = name.split(".", 1)
        if not method or method[0].isupper():
            raise SnowfieldError("method must start with a non-uppercase letter")
        shown = f"{service}.{method[0].upper()}{method[1:]}"
        if service not in self.services:
            raise SnowfieldError(f'rpc: can\'t find service "{shown}"')
        handler = self.methods.get(name)
        if handler is None:
            raise SnowfieldError(f'rpc: can\'t find method "{shown}"')
        result = handler(_object_params(params))
        if inspect.isawaitable(result):
            result = await result
        return result


def param(params: dict[str, Any], name: str) -> Any:
    """A parameter by name, matched case-insensitively as Go's encoding/json matches fields."""
    if name in params:
        return params[name]
    folded = name.casefold()
    return next((v for k, v in params.items() if k.casefold() == folded), None)


def _object_params(params: Any) -> dict[str, Any]:
    if params is None:
        return {}
    if isinstance(params, list) and len(params) == 1:
        params = params[0]
    if isinstance(params, list) and not params:
        return {}
    if not isinstance(params, dict):
        raise SnowfieldError(UNMARSHAL)
    return params


def _echo(request: dict[str, Any]) -> dict[str, Any]:
    """The request as gorilla decoded it (its serverRequest), which it echoes in `data` when
    the version is wrong: absent or mistyped strings read as "", absent raw values as null."""

    def text(key: str) -> str:
        value = request.get(key)
        return value if isinstance(value, str) else ""

    return {
        "jsonrpc": text("jsonrpc"),
        "method": text("method"),
        "params": request.get("params"),
        "id": request.get("id"),
    }


def _reply(
    ident: Any,
    *,
    result: Any = None,
    error: tuple[int, str] | None = None,
    data: Any = None,
) -> bytes:
    if error is not None:
        code, message = error
        body = {
            "jsonrpc": "2.0",
            "error": {"code": code, "message": message, "data": data},
            "id": ident,
        }
    else:
        body = {"jsonrpc": "2.0", "result": result, "id": ident}
    return orjson.dumps(body)
