"""An operation (path, parameters, weight, handler) and the context its handler runs in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from snowfield.api.errors import error_response
from snowfield.api.params import Param, parse_all
from snowfield.api.responses import JsonResponse
from snowfield.errors import Forbidden, NotFound
from snowfield.store import queries
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey
from snowfield.store.pagination import Key, Page, PageTokens
from snowfield.store.rows import ChainRow

P = ParamSpec("P")
T = TypeVar("T")
Json = dict[str, Any]
Handler = Callable[["Context"], Awaitable[Json]]
API_KEY_STATE = "api_key"


@dataclass(frozen=True, slots=True)
class Operation:
    """One route of the service; the same object feeds the router and the OpenAPI document."""

    id: str
    path: str
    summary: str
    tag: str
    params: tuple[Param, ...]
    response: str  # name of the 200 body's schema in components
    weight: int  # compute units charged against the caller's rate limit
    handler: Handler


@dataclass(frozen=True, slots=True)
class Services:
    db: Database
    tokens: PageTokens


class Context:
    """What a handler sees: parsed arguments, the caller's key, the store and paging."""

    def __init__(
        self, services: Services, op: Operation, args: dict[str, Any], key: ApiKey | None
    ) -> None:
        self.db = services.db
        self.args = args
        self.key = key
        self._tokens = services.tokens
        # Invariant: a page token is bound to every argument except the paging ones.
        shaping = {k: v for k, v in args.items() if k not in ("pageToken", "pageSize")}
        self._scope = {"op": op.id, **shaping}

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Runs a blocking store call in a worker thread."""
        return await run_in_threadpool(fn, *args, **kwargs)

    async def chain(self) -> ChainRow:
        """The chain named by the `chainId` path parameter, if the caller's key may use it."""
        ref = str(self.args["chainId"])
        found = await self.run(queries.find_chain, self.db, ref)
        if found is None:
            raise NotFound(f"chain {ref} is not supported")
        if self.key is not None and not self.key.allows(found.chain_id):
            raise Forbidden(f"this API key may not query chain {ref}")
        return found

    def after(self) -> Key | None:
        token = self.args.get("pageToken")
        return None if token is None else self._tokens.decode(token, self._scope)

    def next_page(self, page: Page[Any]) -> Json:
        """{nextPageToken} when more items exist; {} otherwise (never null)."""
        if page.next_key is None:
            return {}
        return {"nextPageToken": self._tokens.encode(self._scope, page.next_key)}


def endpoint(op: Operation, services: Services) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of `op`: parse, handle, render; every failure in the error shape."""

    async def serve(request: Request) -> Response:
        try:
            args = parse_all(op.params, request.path_params, request.query_params)
            key = request.scope.get("state", {}).get(API_KEY_STATE)
            body = await op.handler(Context(services, op, args, key))
        except Exception as exc:
            return error_response(exc)
        return JsonResponse(body)

    return serve
