"""A route table: path templates in order, resolved once per request with one dictionary
look-up for fixed paths and one regex for templated ones (matching the route list once per
step of a request, and again in a general-purpose router, cost more than operation 5's query;
bench/api.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Generic, TypeVar

from starlette.datastructures import URL
from starlette.routing import compile_path
from starlette.types import Scope

T = TypeVar("T")
_NAMED_GROUP = re.compile(r"\(\?P<(\w+)>")
NO_PARAMS: Mapping[str, str] = MappingProxyType({})
WEBSOCKET = "WEBSOCKET"  # the method of a WebSocket route; no HTTP request has it


def methods(*names: str) -> frozenset[str]:
    """The methods a route answers; HEAD comes with GET, as Starlette gives it."""
    found = {name.upper() for name in names}
    return frozenset(found | {"HEAD"} if "GET" in found else found)


GET = methods("GET")

# Templated paths resolved are remembered, by (path, method): the alternation regex and the
# parameters' dictionary cost about 4.6 µs of a warm operation-5 request (issue 34), a look-up
# about 0.1 µs. Bounded like the endpoints' argument cache (starts over when full); a path
# longer than any the services answer is matched, not remembered.
_REMEMBERED = 4096
_REMEMBERED_PATH = 256


@dataclass(frozen=True, slots=True)
class Route(Generic[T]):
    """One route: a path template in Starlette's syntax (/v1/chains/{chainId}), the methods it
    answers and what answers it (`target`: an endpoint, an operation, a service)."""

    path: str
    target: T
    methods: frozenset[str] = GET


@dataclass(frozen=True, slots=True)
class Match(Generic[T]):
    """A request's route: `route` is None when no path matches; `allowed` is False when the
    path matches but not with this method (405)."""

    route: Route[T] | None
    params: Mapping[str, str] = field(default_factory=lambda: NO_PARAMS)
    allowed: bool = False


def route_path(scope: Scope) -> str:
    """The request's path below the app's root path, as Starlette's router reads it."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if not root or not path.startswith(root):
        return path
    if path == root:
        return ""
    return path[len(root) :] if path[len(root)] == "/" else path


class RouteTable(Generic[T]):
    """Routes in order: the first whose path matches decides, and its methods say whether the
    request is allowed.

    Invariant: a fixed path is in the dictionary only when no earlier template matches it, so
    the dictionary gives the answer the ordered list gives."""

    def __init__(self, routes: Iterable[Route[T]]) -> None:
        self.routes: tuple[Route[T], ...] = tuple(routes)
        self._fixed: dict[str, tuple[frozenset[str], Match[T], Match[T]]] = {}
        fixed: dict[str, Route[T]] = {}
        self._params: list[list[tuple[str, str]]] = []  # per route: (group, parameter)
        alternatives = []
        templates: list[re.Pattern[str]] = []
        for i, route in enumerate(self.routes):
            regex, _, convertors = compile_path(route.path)
            pattern = regex.pattern[1:-1]  # without ^ and $
            names = _NAMED_GROUP.findall(pattern)
            self._params.append([(f"r{i}_{name}", name) for name in names])
            renamed = _NAMED_GROUP.sub(rf"(?P<r{i}_\1>", pattern)
            alternatives.append(f"(?P<r{i}>{renamed})")
            if convertors:
                templates.append(regex)
            elif route.path not in fixed and not any(t.match(route.path) for t in templates):
                fixed[route.path] = route
                allowed, refused = Match(route, NO_PARAMS, True), Match(route)
                self._fixed[route.path] = (route.methods, allowed, refused)
        # The route a request to one of these paths resolves to (any method), for callers that
        # look a path up without a Match: the node's JSON-RPC fast path.
        self.fixed: Mapping[str, Route[T]] = MappingProxyType(fixed)
        self._pattern = re.compile("^(?:" + "|".join(alternatives) + ")$")
        self._unmatched: Match[T] = Match(None)
        self._seen: dict[tuple[str, str], Match[T]] = {}  # templated paths resolved

    def resolve(self, scope: Scope) -> Match[T]:
        """The request's route; a WebSocket request's method is WEBSOCKET."""
        # Inlined, with the fixed paths first: this runs on every request of the node's RPC.
        path = route_path(scope) if scope.get("root_path") else scope["path"]
        fixed = self._fixed.get(path)
        if fixed is not None:
            return fixed[1] if scope.get("method", WEBSOCKET) in fixed[0] else fixed[2]
        return self._search(path, scope.get("method", WEBSOCKET))

    def find(self, path: str, method: str) -> Match[T]:
        """The route of `path` (below the root path) asked with `method`."""
        fixed = self._fixed.get(path)
        if fixed is not None:
            return fixed[1] if method in fixed[0] else fixed[2]
        return self._search(path, method)

    def _search(self, path: str, method: str) -> Match[T]:
        if len(path) > _REMEMBERED_PATH:
            return self._match(path, method)
        seen = (path, method)
        found = self._seen.get(seen)
        if found is None:
            found = self._match(path, method)
            if len(self._seen) >= _REMEMBERED:
                self._seen.clear()
            self._seen[seen] = found
        return found

    def _match(self, path: str, method: str) -> Match[T]:
        hit = self._pattern.match(path)
        if hit is None or hit.lastgroup is None:
            return self._unmatched
        index = int(hit.lastgroup[1:])
        route = self.routes[index]
        # Read-only: a remembered match is every later request's to that path.
        params = MappingProxyType({name: hit[group] for group, name in self._params[index]})
        return Match(route, params, method in route.methods)

    def redirect(self, scope: Scope) -> str | None:
        """Where Starlette's router sends an HTTP request that no route matches: the same URL
        with its trailing slash added or removed, when some route has that path."""
        path = route_path(scope)
        if scope["type"] != "http" or path == "/":
            return None
        twin = dict(scope)
        twin["path"] = scope["path"].rstrip("/") if path.endswith("/") else scope["path"] + "/"
        if self.find(route_path(twin), "").route is None:
            return None
        return str(URL(scope=twin))
