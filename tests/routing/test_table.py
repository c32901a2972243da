"""The route table answers as Starlette's ordered route list does: first match wins, a path
with another method is 405, fixed paths shadowed by an earlier template stay shadowed."""

from __future__ import annotations

from typing import Any

from snowfield.routing.table import WEBSOCKET, Route, RouteTable, methods


def scope(path: str, method: str = "GET", **extra: Any) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "headers": [], **extra}


TABLE = RouteTable(
    [
        Route("/v1/chains", "chains"),
        Route("/v1/chains/{chainId}", "chain"),
        Route("/v1/chains/fixed", "shadowed"),  # the template above matches it first
        Route("/post", "post", methods("POST")),
        Route("/ws", "ws", frozenset({WEBSOCKET})),
    ]
)


def test_first_match_wins() -> None:
    assert TABLE.resolve(scope("/v1/chains")).route == Route("/v1/chains", "chains")
    chain = TABLE.resolve(scope("/v1/chains/43114"))
    assert chain.route is not None and chain.route.target == "chain"
    assert dict(chain.params) == {"chainId": "43114"} and chain.allowed
    shadowed = TABLE.resolve(scope("/v1/chains/fixed"))
    assert shadowed.route is not None and shadowed.route.target == "chain"
    assert "/v1/chains/fixed" not in TABLE.fixed and "/v1/chains" in TABLE.fixed


def test_methods() -> None:
    assert TABLE.resolve(scope("/v1/chains", "HEAD")).allowed  # HEAD comes with GET
    refused = TABLE.resolve(scope("/post", "GET"))
    assert refused.route is not None and not refused.allowed
    assert TABLE.resolve(scope("/nothing")).route is None
    socket = TABLE.resolve({"type": "websocket", "path": "/ws", "headers": []})
    assert socket.allowed and not TABLE.resolve(scope("/ws")).allowed


def test_root_path_and_redirects() -> None:
    below = TABLE.resolve(scope("/api/v1/chains", root_path="/api"))
    assert below.route is not None and below.route.target == "chains"
    served = {"server": ("127.0.0.1", 8080), "query_string": b"a=1"}
    assert TABLE.redirect(scope("/v1/chains/", **served)) == "http://127.0.0.1:8080/v1/chains?a=1"
    assert TABLE.redirect(scope("/post/", "GET", **served)) == "http://127.0.0.1:8080/post?a=1"
    assert TABLE.redirect(scope("/nothing/", **served)) is None
    assert TABLE.redirect(scope("/", **served)) is None
