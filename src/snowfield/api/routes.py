"""Which route a request is, worked out once per request with one regex: the telemetry label,
the rate-limit weight and the dispatch all read the answer (matching the route list for each
of them, and again in a general-purpose router, cost more than operation 5's query;
bench/api.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from starlette.routing import compile_path
from starlette.types import Scope

_NAMED_GROUP = re.compile(r"\(\?P<(\w+)>")
UNMATCHED = "(unmatched)"


@dataclass(frozen=True, slots=True)
class RouteSpec:
    path: str  # a Starlette path template, e.g. /v1/chains/{chainId}
    weight: int  # compute units charged against the caller's rate limit
    methods: frozenset[str] = frozenset({"GET", "HEAD"})


@dataclass(frozen=True, slots=True)
class Resolved:
    """A request's route: `index` is None when no path matches; `allowed` is False when a path
    matches but not with this method (405)."""

    label: str
    weight: int
    index: int | None = None
    params: dict[str, str] = field(default_factory=dict)
    allowed: bool = False
    methods: frozenset[str] = frozenset()


class RouteTable:
    """Routes in order; one regex finds the first whose path matches, as Starlette's router
    would, and reads its path parameters from groups renamed per route."""

    def __init__(self, routes: Sequence[RouteSpec], *, unmatched_weight: int = 1) -> None:
        self._routes = list(routes)
        self._params: list[list[tuple[str, str]]] = []  # per route: (group, parameter)
        alternatives = []
        for i, route in enumerate(routes):
            pattern = compile_path(route.path)[0].pattern[1:-1]  # without ^ and $
            names = _NAMED_GROUP.findall(pattern)
            self._params.append([(f"r{i}_{name}", name) for name in names])
            renamed = _NAMED_GROUP.sub(rf"(?P<r{i}_\1>", pattern)
            alternatives.append(f"(?P<r{i}>{renamed})")
        self._pattern = re.compile("^(?:" + "|".join(alternatives) + ")$")
        self._unmatched = Resolved(UNMATCHED, unmatched_weight)

    def resolve(self, scope: Scope) -> Resolved:
        """The request's route."""
        path = scope["path"]
        root = scope.get("root_path", "")
        path = path[len(root) :] if root and path.startswith(root) else path
        hit = self._pattern.match(path)
        if hit is None or hit.lastgroup is None:
            return self._unmatched
        index = int(hit.lastgroup[1:])
        route = self._routes[index]
        params = {name: hit[group] for group, name in self._params[index]}
        if scope["method"] in route.methods:
            return Resolved(route.path, route.weight, index, params, True, route.methods)
        return Resolved(UNMATCHED, self._unmatched.weight, index, params, False, route.methods)
