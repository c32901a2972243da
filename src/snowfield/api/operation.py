"""An operation (path, parameters, weight, handler), its endpoint, and the context the data
service's handlers run in."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar
from urllib.parse import parse_qsl

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.types import Scope, Send

from snowfield.api.errors import SendError, send_error
from snowfield.api.params import Param, parse_all, single_values
from snowfield.api.request_body import BODY_METHODS, request_json
from snowfield.api.responses import Endpoint, Headers, SendJson, send_json
from snowfield.errors import Forbidden, NotFound
from snowfield.routing.table import methods
from snowfield.store import chain_queries, primary
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey
from snowfield.store.pagination import Key, Page, PageTokens
from snowfield.store.primary import PrimaryNetwork
from snowfield.store.rows import ChainRow

if TYPE_CHECKING:
    from snowfield.aggregator.service import AggregatorService as SignatureService

P = ParamSpec("P")
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
C = TypeVar("C")  # what a handler is given: the data service's Context, the metrics service's
Json = dict[str, Any]
# What a handler answers: a JSON object to serialize, or the answer's JSON bytes already made
# (a page of stored documents joined: store/history_pages.py).
Body = Json | bytes
# The arguments of a request from its path parameters and its query (name, value) pairs.
Arguments = Callable[[Mapping[str, str], list[tuple[str, str]]], dict[str, Any]]


class SharedArguments(dict[str, Any]):
    """A reading of a request's arguments that every later request with the same query and
    path shares (the endpoint's memo): read-only, since handlers share it; it keeps the
    canonical page-token scope the first page made (`Context`): 2.3 us of a warm page of
    operation 5 in process went to making that scope and its token each time."""

    __slots__ = ("token_scope",)

    def __init__(self, parsed: Mapping[str, Any]) -> None:
        super().__init__(parsed)
        self.token_scope: bytes | None = None

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a request's shared arguments are read-only")

    __setitem__ = __delitem__ = setdefault = pop = popitem = update = clear = _read_only
    __ior__ = _read_only


@dataclass(frozen=True, slots=True)
class Operation(Generic[C]):
    """One route of a service; the same object feeds the router and the OpenAPI document."""

    id: str
    path: str
    summary: str
    tag: str
    params: tuple[Param, ...]
    response: str | None  # name of the success body's schema in components; None: no body
    weight: int  # compute units charged against the caller's rate limit
    handler: Callable[[C], Awaitable[Body]]
    method: str = "GET"
    request_body: str | None = None  # name of the request body's schema
    status: int = 200  # the success status (the real service answers some creations 201)
    # How the request's arguments are read; by default each of `params` reads its own (the
    # metrics service checks them together, reporting every problem at once).
    arguments: Arguments | None = None

    @property
    def methods(self) -> frozenset[str]:
        return methods(self.method)


async def call_store(db: Database, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Runs a blocking store call: inline on SQLite, in a worker thread on PostgreSQL.
    SQLite reads here are short CPU work on a local file (bounded keyset queries under the
    store's query time limit), cheaper than the worker-thread round trip they used to take
    (operation 5: about +45% requests/s inline, bench/api.py); PostgreSQL calls wait on the
    network, so they keep the thread.

    On SQLite the calls of one turn of the event loop share one read transaction
    (`Database.hold_snapshot`), released at the next turn: beginning and ending one per
    statement (a lock and an unlock of the WAL index's read mark, and a stat of the file:
    three system calls) cost operation 5 about 3% of its requests/s served side by side
    (bench/api.py's 2M store, one URL). Every request a turn answers was read from its socket
    before the turn began (uvloop and asyncio both poll between turns), so none is answered
    from a snapshot older than its arrival; and one taken before a commit of this process's
    own is renewed."""
    if db.dialect == "sqlite":
        if db.hold_snapshot():
            asyncio.get_running_loop().call_soon(db.release_snapshot)
        return fn(*args, **kwargs)
    return await run_in_threadpool(fn, *args, **kwargs)


class StoreCache(Generic[K, V]):
    """Store lookups by key, kept `ttl` seconds, for what changes only when an indexer starts
    (chains, primary networks): a query per request cost more than the page it served."""

    def __init__(
        self,
        db: Database,
        lookup: Callable[[Database, K], V],
        *,
        ttl: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.lookup = lookup
        self.ttl = ttl
        self.clock = clock
        self._known: dict[K, tuple[V, float]] = {}

    def peek(self, key: K) -> tuple[V] | None:
        """The value kept for `key` while fresh, in a 1-tuple (the value may be None); None
        when it has to be looked up (`get`). For a caller on the request path, which then
        awaits nothing when it is known (each coroutine layer costs a warm request)."""
        hit = self._known.get(key)
        return (hit[0],) if hit is not None and hit[1] > self.clock() else None

    async def get(self, key: K) -> V:
        known = self.peek(key)
        if known is not None:
            return known[0]
        now = self.clock()
        found = await call_store(self.db, self.lookup, self.db, key)
        if len(self._known) >= 1024:  # unknown keys must not grow it without bound
            self._known.clear()
        self._known[key] = (found, now + self.ttl)
        return found


class ChainCache(StoreCache[str, "ChainRow | None"]):
    """Chains by path reference."""

    def __init__(
        self, db: Database, *, ttl: float = 5.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(db, chain_queries.find_chain, ttl=ttl, clock=clock)

    async def find(self, ref: str) -> ChainRow | None:
        return await self.get(ref)


class NetworkCache(StoreCache[None, "list[PrimaryNetwork]"]):
    """The indexed primary networks."""

    def __init__(
        self, db: Database, *, ttl: float = 5.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(db, lambda db, _: primary.networks(db), ttl=ttl, clock=clock)

    async def get(self, key: None) -> list[PrimaryNetwork]:
        found = await super().get(key)
        if not found:
            # Before an indexer's first start: the next request looks again, so the network
            # is served as soon as it is recorded.
            self._known.pop(key, None)
        return found


@dataclass(frozen=True, slots=True)
class Services:
    db: Database
    tokens: PageTokens
    chains: ChainCache
    networks: NetworkCache
    signatures: SignatureService | None = None
    public_url: str = ""  # where clients reach this service (links it hands out); "": relative


class Context:
    """What a handler sees: parsed arguments, the caller's key, the store and paging. One is
    made for every request: slotted, no instance dict to fill."""

    __slots__ = ("_chains", "_networks", "_op", "_scope", "_tokens", "args", "db", "key",
                 "public_url", "signatures")  # fmt: skip

    def __init__(
        self, services: Services, op: Operation[Context], args: dict[str, Any], key: ApiKey | None
    ) -> None:
        self.db = services.db
        self.signatures = services.signatures
        self.public_url = services.public_url
        self._chains = services.chains
        self._networks = services.networks
        self.args = args
        self.key = key
        self._tokens = services.tokens
        self._op = op.id
        self._scope: bytes | None = None  # made when a page token is read or made

    def _token_scope(self) -> bytes:
        """The canonical scope this request's page tokens are bound to: kept with arguments
        that later requests share (`SharedArguments`), so a hot query makes it once."""
        # Invariant: a page token is bound to every argument except the paging ones.
        if self._scope is None:
            args = self.args
            shared = args.token_scope if isinstance(args, SharedArguments) else None
            if shared is None:
                shaping = {k: v for k, v in args.items() if k not in ("pageToken", "pageSize")}
                shared = PageTokens.canonical({"op": self._op, **shaping})
                if isinstance(args, SharedArguments):
                    args.token_scope = shared
            self._scope = shared
        return self._scope

    def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, T]:
        """Runs a store call (see `call_store`): its coroutine, for the caller to await (not a
        coroutine of its own around it: one layer less on every request)."""
        return call_store(self.db, fn, *args, **kwargs)

    async def chain(self) -> ChainRow:
        """The chain named by the `chainId` path parameter, if the caller's key may use it."""
        ref = str(self.args["chainId"])
        known = self._chains.peek(ref)
        found = known[0] if known is not None else await self._chains.find(ref)
        if found is None:
            raise NotFound(f"chain {ref} is not supported")
        if self.key is not None and not self.key.allows(found.chain_id):
            raise Forbidden(f"this API key may not query chain {ref}")
        return found

    async def primary_networks(self) -> list[PrimaryNetwork]:
        """The primary networks the store indexes."""
        return await self._networks.get(None)

    def after(self) -> Key | None:
        token = self.args.get("pageToken")
        return None if token is None else self._tokens.decode_in(self._token_scope(), token)

    def next_token(self, page: Page[Any]) -> str | None:
        """The token of the page after `page`, None when no more items exist."""
        if page.next_key is None:
            return None
        return self._tokens.encode_in(self._token_scope(), page.next_key)

    def next_page(self, page: Page[Any]) -> Json:
        """{nextPageToken} when more items exist; {} otherwise (never null)."""
        token = self.next_token(page)
        return {} if token is None else {"nextPageToken": token}

    def page_end(self, page: Page[Any]) -> bytes:
        """What follows a page's array in an answer made as bytes (`Body`): its
        nextPageToken member, if any, and the closing brace."""
        token = self.next_token(page)
        if token is None:
            return b"}"
        # base64url and a dot (PageTokens): a JSON string as it is, nothing to escape.
        return b',"nextPageToken":"%s"}' % token.encode("ascii")


def endpoint(
    op: Operation[C],
    context: Callable[[Operation[C], dict[str, Any], ApiKey | None], C],
    errors: SendError = send_error,
    respond: SendJson = send_json,
) -> Endpoint:
    """The endpoint of `op`: read the arguments, handle them in the `context` made for the
    request, render (`respond`); every failure in the service's error shape (`errors`)."""

    repeated = frozenset(p.name for p in op.params if p.repeated)
    arguments = op.arguments
    # Arguments already read, by (query string, path parameters): reading them is a pure
    # function of those, and cost about a fifth of a warm page of operation 5 (issue 34's
    # profile). Only valid readings are kept (a refusal raises); bounded like StoreCache.
    # Requests with the same query share one read-only reading (`SharedArguments`).
    read: dict[tuple[bytes, tuple[tuple[str, str], ...]], SharedArguments] = {}
    memo = op.method not in BODY_METHODS

    def parse(raw: bytes, path: Mapping[str, str]) -> dict[str, Any]:
        # As Starlette's QueryParams reads it: latin-1, blanks kept.
        query = parse_qsl(raw.decode("latin-1"), keep_blank_values=True)
        if arguments is None:  # each parameter reads its own; a name given twice is refused
            return parse_all(op.params, path, single_values(query, repeated))
        return arguments(path, query)

    async def serve(
        scope: Scope, send: Send, path: Mapping[str, str], key: ApiKey | None, headers: Headers
    ) -> int:
        try:
            if memo:
                seen = (scope["query_string"], tuple(path.items()))
                args: dict[str, Any] | None = read.get(seen)
                if args is None:
                    args = SharedArguments(parse(seen[0], path))
                    if len(read) >= 4096:
                        read.clear()
                    read[seen] = args
            else:
                args = parse(scope["query_string"], path)
            if op.method in BODY_METHODS:
                args["body"] = request_json(scope)
            body = await op.handler(context(op, args, key))
        except Exception as exc:
            return await errors(scope, send, exc, headers)
        if op.response is None:
            raw = b""
        elif type(body) is bytes:  # made already (`Body`)
            raw = body
        else:
            raw = orjson.dumps(body)
        return await respond(scope, send, raw, op.status, headers)

    return serve
