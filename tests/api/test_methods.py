"""Operations beyond GET and POST: several methods on one path, each with its own handler and
weight; success statuses other than 200, with or without a body; JSON bodies on DELETE."""

from __future__ import annotations

from typing import Any

import httpx

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.operation import Context, Operation
from snowfield.api.params import Param
from snowfield.store.database import Database
from tests.api.conftest import assert_error, serve_app

ID = Param("id", "path", "The thing's id.")


def _echo(verb: str) -> Any:
    async def handle(ctx: Context) -> dict[str, Any]:
        return {"verb": verb, "id": ctx.args["id"], "body": ctx.args.get("body")}

    return handle


OPERATIONS = (
    Operation("getThing", "/v1/things/{id}", "Get.", "t", (ID,), "Error", 1, _echo("get")),
    Operation(
        "patchThing", "/v1/things/{id}", "Patch.", "t", (ID,), "Error", 2, _echo("patch"), "PATCH"
    ),
    Operation(
        "dropThing", "/v1/things/{id}", "Drop.", "t", (ID,), "Error", 3, _echo("drop"), "DELETE"
    ),
    Operation(
        "makeThing", "/v1/things/{id}:make", "Make.", "t", (ID,), "Error", 1, _echo("make"),
        "POST", status=201,
    ),
    Operation(
        "pokeThing", "/v1/things/{id}:poke", "Poke.", "t", (ID,), None, 1, _echo("poke"),
        "POST", status=201,
    ),
)  # fmt: skip


def test_each_method_of_a_path_reaches_its_own_operation(db: Database) -> None:
    app = create_data_app(db, operations=OPERATIONS, policy=RatePolicy(100, 100))

    with serve_app(app) as base, httpx.Client(base_url=base) as client:
        got = client.get("/v1/things/a")
        assert got.status_code == 200 and got.json()["verb"] == "get"
        assert got.headers["ratelimit-remaining"] == "99"
        patched = client.patch("/v1/things/a", json={"x": 1})
        assert patched.json() == {"verb": "patch", "id": "a", "body": {"x": 1}}
        assert patched.headers["ratelimit-remaining"] == "97"  # PATCH weighs 2
        dropped = client.request("DELETE", "/v1/things/b", json={"addresses": ["0x1"]})
        assert dropped.json() == {"verb": "drop", "id": "b", "body": {"addresses": ["0x1"]}}
        made = client.post("/v1/things/c:make", json={})
        assert made.status_code == 201 and made.json()["verb"] == "make"
        poked = client.post("/v1/things/c:poke")
        assert poked.status_code == 201 and poked.content == b""
        refused = client.put("/v1/things/a", json={})
        assert_error(refused, 405)
        assert set(refused.headers["allow"].split(", ")) == {"DELETE", "GET", "HEAD", "PATCH"}
        assert_error(client.patch("/v1/things/a", content=b"[1"), 400, "Could not decode")
        document = client.get("/openapi.json").json()
        assert set(document["paths"]["/v1/things/{id}"]) == {"get", "patch", "delete"}
        assert (
            "content" not in document["paths"]["/v1/things/{id}:poke"]["post"]["responses"]["201"]
        )


def test_a_fixed_path_wins_over_an_earlier_template_that_matches_it(db: Database) -> None:
    # As /v1/chains/allBlocks beside /v1/chains/{chainId}: listed in either order, each path
    # reaches its own operation.
    for ops in (OPERATIONS[:1] + FIXED, FIXED + OPERATIONS[:1]):
        app = create_data_app(db, operations=ops, policy=RatePolicy(100, 100))
        with serve_app(app) as base, httpx.Client(base_url=base) as client:
            assert client.get("/v1/things/all").json()["verb"] == "all"
            assert client.get("/v1/things/a").json() == {"verb": "get", "id": "a", "body": None}


async def _all(ctx: Context) -> dict[str, Any]:
    return {"verb": "all"}


FIXED = (Operation("allThings", "/v1/things/all", "All.", "t", (), "Error", 1, _all),)
