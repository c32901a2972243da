"""An async JSON-RPC 2.0 client over HTTP (the one owner of the HTTP client library)."""

from __future__ import annotations

import asyncio
import functools
import itertools
import ssl
from collections.abc import Sequence
from typing import Any

import httpx
import orjson

from snowfield.errors import SnowfieldError, Unavailable


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every client of the process: building one loads the CA bundle
    (~45 ms measured here, against ~1 ms for a client given a built one), and an indexer
    opens four clients per node (bench/primary_index.py's profile: 9% of a sync)."""
    return httpx.create_ssl_context()


class RpcError(SnowfieldError):
    """Raised when a node answers a call with a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message, data=data)
        self.code = code


class RpcClient:
    """Calls one JSON-RPC endpoint; reuses one HTTP connection pool."""

    def __init__(self, url: str, *, timeout: float = 30.0, retries: int = 0) -> None:
        self.url = url
        self.retries = retries
        self._ids = itertools.count(1)
        self._http = httpx.AsyncClient(timeout=timeout, verify=_tls())

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
        results = await self.batch_results(calls)
        for result in results:
            if isinstance(result, RpcError):
                raise result
        return results

    async def batch_results(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        """Sends calls in one batch; each item is its result or its RpcError, in call order."""
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
            # A node answers a whole batch with one error object (e.g. batch too large).
            error = _outcome(replies)
            return [error] * len(calls)
        by_id = {r.get("id"): r for r in replies if isinstance(r, dict)}
        return [_outcome(by_id.get(first + i, {})) for i in range(len(calls))]

    async def _post(self, body: object) -> Any:
        """The decoded reply; transport failures and 5xx answers are retried `retries` times,
        then raised as Unavailable (as is any other non-2xx answer)."""
        content = orjson.dumps(body)
        for attempt in range(self.retries + 1):
            try:
                response = await self._http.post(
                    self.url, content=content, headers={"content-type": "application/json"}
                )
            except httpx.TransportError as exc:
                if attempt == self.retries:
                    raise Unavailable(f"{self.url} is unreachable: {exc!r}") from exc
            else:
                if response.status_code < 500 or attempt == self.retries:
                    if not response.is_success:
                        raise Unavailable(f"{self.url} answered HTTP {response.status_code}")
                    try:
                        return orjson.loads(response.content)
                    except orjson.JSONDecodeError as exc:
                        raise Unavailable(f"{self.url} answered with invalid JSON") from exc
            # Back off 0.2, 0.4, 0.8 ... s, at most 5 s, before the next attempt.
            await asyncio.sleep(min(5.0, 0.2 * 2**attempt))
        raise AssertionError("unreachable")


def _outcome(reply: Any) -> Any:
    try:
        return _result(reply)
    except RpcError as exc:
        return exc


def _result(reply: Any) -> Any:
    if not isinstance(reply, dict):
        raise RpcError(-32603, f"malformed reply: {reply!r}")
    if "error" in reply and reply["error"] is not None:
        err = reply["error"]
        raise RpcError(int(err.get("code", -32603)), str(err.get("message")), err.get("data"))
    if "result" not in reply:
        raise RpcError(-32603, "reply has neither result nor error")
    return reply["result"]


class TooLarge(SnowfieldError):
    """Raised when a fetched document exceeds the allowed size."""


class DocumentFetcher:
    """GETs small documents over http(s) (NFT metadata), bounded in size and time."""

    def __init__(self, *, timeout: float = 5.0, max_bytes: int = 1 << 20) -> None:
        self.max_bytes = max_bytes
        self._http = httpx.AsyncClient(timeout=timeout, follow_redirects=True, verify=_tls())

    async def aclose(self) -> None:
        await self._http.aclose()

    async def get(self, url: str) -> bytes:
        """The body of a 2xx answer; Unavailable for network errors and other statuses."""
        try:
            async with self._http.stream("GET", url) as response:
                if response.status_code // 100 != 2:
                    raise Unavailable(f"{url} answered {response.status_code}")
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > self.max_bytes:
                        raise TooLarge(f"{url} is larger than {self.max_bytes} bytes")
                return bytes(body)
        except httpx.HTTPError as exc:
            raise Unavailable(f"{url}: {exc}") from exc
