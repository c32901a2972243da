"""Every failure answers {message, statusCode, error}: 404s, 400s naming the parameter, 500s."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest

from snowfield import errors
from snowfield.api.errors import STATUS, send_error, status_of
from snowfield.store.database import Database
from tests.api.conftest import ALICE, BOB, CHAIN, NFT, assert_error

BASE = f"/v1/chains/{CHAIN}"


@pytest.mark.parametrize(
    "path",
    [
        "/v1/chains/999/blocks/1/transactions",
        "/v1/chains/notachain/addresses/" + ALICE + "/transactions",
        f"/v1/chains/{2**64}/contracts/{ALICE}/deployments",
        f"{BASE}/blocks/999/transactions",
        f"{BASE}/blocks/0x{'ab' * 32}/transactions",
        f"{BASE}/addresses/{BOB}",  # an account, not a contract
        "/v1/nothing/here",
        "/v2/chains",
    ],
)
def test_missing_things_are_404(api: httpx.Client, path: str) -> None:
    assert_error(api.get(path), 404)


@pytest.mark.parametrize(
    ("path", "params", "name"),
    [
        ("/v1/chains", {"network": "devnet"}, "network"),
        ("/v1/chains", {"feature": "NFTINDEXING"}, "feature"),
        (f"{BASE}/addresses/0x1234/transactions", {}, "address"),
        (f"{BASE}/addresses/{ALICE[:-1]}g/transactions:listErc20", {}, "address"),
        (f"{BASE}/addresses/{ALICE}/transactions", {"sortOrder": "up"}, "sortOrder"),
        (
            f"{BASE}/addresses/{ALICE}/balances:listErc721",
            {"contractAddress": "0xzz"},
            "contractAddress",
        ),
        (f"{BASE}/blocks/0x12/transactions", {}, "blockId"),
        (f"{BASE}/blocks/latest/transactions", {}, "blockId"),
        (f"{BASE}/blocks/{2**70}/transactions", {}, "blockId"),
        (f"{BASE}/contracts/{NFT}x/deployments", {}, "address"),
    ],
)
def test_bad_parameters_are_400_naming_them(
    api: httpx.Client, path: str, params: dict[str, str], name: str
) -> None:
    assert_error(api.get(path, params=params), 400, name)


def test_wrong_method_is_405_in_shape(api: httpx.Client) -> None:
    response = api.post("/v1/chains")
    assert response.status_code == 405
    assert response.json() == {
        "message": "Method Not Allowed",
        "statusCode": 405,
        "error": "Method Not Allowed",
    }


def test_one_table_maps_the_error_tree() -> None:
    expected = {
        errors.InvalidParams("x"): 400,
        errors.Unauthorized("x"): 401,
        errors.Forbidden("x"): 403,
        errors.NotFound("x"): 404,
        errors.RateLimited("x", retry_after=1.5): 429,
        errors.Unavailable("x"): 503,
        errors.SnowfieldError("x"): 500,
        RuntimeError("boom"): 500,
    }
    assert {type(e): status_of(e) for e in expected} == {type(e): s for e, s in expected.items()}
    assert len({family for family, _ in STATUS}) == len(STATUS)
    limited = _sent_headers(errors.RateLimited("slow down", retry_after=1.2))
    assert limited["retry-after"] == "2"


def _sent_headers(exc: Exception) -> dict[str, str]:
    """The headers of the error answer `send_error` sends for `exc`."""
    sent: list[Any] = []

    async def capture(message: Any) -> None:
        sent.append(message)

    asyncio.run(send_error({"method": "GET"}, capture, exc))
    return {k.decode(): v.decode() for k, v in sent[0]["headers"]}


def test_uncaught_exceptions_are_500_in_shape_and_logged(
    filled: Database, caplog: pytest.LogCaptureFixture
) -> None:
    from snowfield.api.app import OPERATIONS, create_data_app
    from snowfield.api.operation import Context, Json, Operation
    from tests.api.conftest import serve_app

    async def broken(ctx: Context) -> Json:
        raise ZeroDivisionError("the handler has a bug")

    ops = (*OPERATIONS, Operation("broken", "/v1/broken", "x", "x", (), "Error", 1, broken))
    with (
        caplog.at_level(logging.ERROR, "snowfield.api"),
        serve_app(create_data_app(filled, operations=ops)) as base,
    ):
        response = httpx.get(base + "/v1/broken")
    body = assert_error(response, 500)
    assert body == {
        "message": "internal server error",
        "statusCode": 500,
        "error": "Internal Server Error",
    }
    assert "the handler has a bug" not in response.text
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in caplog.records)
