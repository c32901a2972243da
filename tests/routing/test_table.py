"""The route table answers as Starlette's ordered route list does: first match wins, a path
with another method is 405, fixed paths shadowed by an earlier template stay shadowed."""

from __future__ import annotations

from typing import Any

import pytest

from snowfield.routing.table import WEBSOCKET, Route, RouteTable, methods

GET_POST = methods("GET", "POST")


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


def test_remembered_matches_answer_as_the_first_time() -> None:
    """A templated path resolves the same when asked again (remembered), per method, with
    parameters no caller can alter; past the bound it starts over, and a path too long to
    remember is matched each time."""
    table = RouteTable([Route("/v1/chains/{chainId}", "chain"), Route("/p/{x}", "p", GET_POST)])
    first = table.resolve(scope("/v1/chains/7"))
    again = table.resolve(scope("/v1/chains/7"))
    assert again == first and again.allowed and dict(again.params) == {"chainId": "7"}
    assert not table.resolve(scope("/v1/chains/7", "POST")).allowed
    assert table.resolve(scope("/v1/chains/7")).allowed  # the refusal did not replace it
    with pytest.raises(TypeError):
        again.params["chainId"] = "8"  # type: ignore[index]
    seen = [table.resolve(scope(f"/p/{n}", "POST")) for n in range(5_000)]
    assert all(m.allowed and m.params["x"] == str(n) for n, m in enumerate(seen))
    assert table.resolve(scope("/p/3", "POST")).params["x"] == "3"
    long = "/p/" + "x" * 300
    assert table.resolve(scope(long)).params["x"] == "x" * 300
    assert table.resolve(scope("/v1/nothing/at/all")).route is None
