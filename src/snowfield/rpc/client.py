"""An async JSON-RPC 2.0 client over HTTP (the one owner of the HTTP client library)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import httpx
import orjson

from snowfield.errors import SnowfieldError


class RpcError(SnowfieldError):
    """Raised when a node answers a call with a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message, data=data)
        self.code = code


class RpcClient:
    """Calls one JSON-RPC endpoint; reuses one HTTP connection pool."""

    def __init__(self, url: str, *, timeout: float = 30.0) -> None:
        self.url = url
        self._ids = itertools.count(1)
        self._http = httpx.AsyncClient(timeout=timeout)

    async def __aenter__(self) -> RpcClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def call(self, method: str, *params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": list(params)}
        reply = await self._post(body)
        return _result(reply)

    async def call_object(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Calls a method whose params are one object (the avalanchego service style)."""
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params or {}}
        return _result(await self._post(body))

    async def batch(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        """Sends calls in one batch; results come back in call order; the first error raises."""
        if not calls:
            return []
        first = next(self._ids)
        body = [
            {"jsonrpc": "2.0", "id": first + i, "method": m, "params": list(p)}
            for i, (m, p) in enumerate(calls)
        ]
        for _ in range(len(calls) - 1):
            next(self._ids)
        replies = await self._post(body)
        if not isinstance(replies, list):
            return [_result(replies)]
        by_id = {r.get("id"): r for r in replies}
        return [_result(by_id.get(first + i, {})) for i in range(len(calls))]

    async def _post(self, body: object) -> Any:
        response = await self._http.post(
            self.url, content=orjson.dumps(body), headers={"content-type": "application/json"}
        )
        response.raise_for_status()
        return orjson.loads(response.content)


def _result(reply: Any) -> Any:
    if not isinstance(reply, dict):
        raise RpcError(-32603, f"malformed reply: {reply!r}")
    if "error" in reply and reply["error"] is not None:
        err = reply["error"]
        raise RpcError(int(err.get("code", -32603)), str(err.get("message")), err.get("data"))
    if "result" not in reply:
        raise RpcError(-32603, "reply has neither result nor error")
    return reply["result"]
