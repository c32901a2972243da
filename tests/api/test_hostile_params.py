"""Hostile parameters on the data and metrics APIs: huge integers, repeated names. Each is a
400 (or 404) in the service's error shape, never a 500."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from snowfield.api.app import OPERATIONS
from snowfield.api.metrics.service import create_metrics_app
from snowfield.api.params import decimal
from snowfield.store.database import Database
from snowfield.testing import serve_asgi
from tests.api.conftest import CHAIN, assert_error

HUGE = "9" * 4301
PATH_VALUES = {
    "chainId": str(CHAIN),
    "address": "0x" + "ab" * 20,
    "blockId": "1",
    "txHash": "0x" + "cd" * 32,
    "tokenId": "1",
    "nodeId": "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg",
}


def _path(template: str, **given: str) -> str:
    chain = "x-chain" if "vertices" in template else "p-chain"
    values = {**PATH_VALUES, "network": "fuji", "blockchainId": chain, **given}
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


CASES = [
    pytest.param(op, param.name, id=f"{op.id}-{param.name}")
    for op in OPERATIONS
    for param in op.params
    # A chain id in the path names the resource (404 when unknown); in a query (the usage
    # operations' filter) it is checked after the caller's key, as the real service does.
    if param.type == "integer" or (param.name in ("blockId", "chainId") and param.where == "path")
]


@pytest.mark.parametrize(("op", "name"), CASES)
def test_huge_integer_parameters_are_refused(api: httpx.Client, op: object, name: str) -> None:
    param = next(p for p in op.params if p.name == name)  # type: ignore[attr-defined]
    template: str = op.path  # type: ignore[attr-defined]
    method: str = op.method  # type: ignore[attr-defined]
    if param.where == "path":
        reply = api.request(method, _path(template, **{name: HUGE}))
        assert_error(reply, 404 if name == "chainId" else 400, name if name != "chainId" else "")
    else:
        required = {"vertexHeight": "0"} if "listByHeight" in template else {}
        reply = api.request(method, _path(template), params={**required, name: HUGE})
        assert_error(reply, 400, name)


@pytest.mark.parametrize(
    "query",
    ["pageSize=10&pageSize=20", "sortOrder=asc&sortOrder=desc", "startBlock=1&startBlock=1"],
)
def test_repeated_query_parameters_are_refused(api: httpx.Client, query: str) -> None:
    name = query.split("=")[0]
    reply = api.get(f"/v1/chains/{CHAIN}/blocks/1/transactions?{query}")
    body = assert_error(reply, 400, name)
    assert body["message"] == f"{name} is given more than once"


@pytest.mark.parametrize("query", ["=&&&=&", "=1&=2", "&&", "=&pageSize=1&="])
def test_empty_parameter_names_are_ignored(api: httpx.Client, query: str) -> None:
    """`?=&&&=&` names no parameter: ignored as unknown names are (it was a 400 ` is given more
    than once`), while a real parameter beside them still applies."""
    url = f"/v1/chains/{CHAIN}/blocks/1/transactions"
    reply = api.get(f"{url}?{query}")
    assert reply.status_code == 200, reply.text
    plain = api.get(url + ("?pageSize=1" if "pageSize" in query else ""))
    assert reply.json() == plain.json()


@pytest.fixture(scope="module")
def metrics(filled: Database) -> Iterator[httpx.Client]:
    with (
        serve_asgi(create_metrics_app(filled), name="metrics") as base,
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        yield client


def _metrics_refusal(reply: httpx.Response, status: int) -> list[str]:
    assert reply.status_code == status, reply.text
    body = reply.json()
    assert set(body) == {"message", "statusCode", "error"} and body["statusCode"] == status
    return list(body["message"])


@pytest.mark.parametrize("name", ["startTimestamp", "endTimestamp", "pageSize"])
def test_metrics_huge_integers(metrics: httpx.Client, name: str) -> None:
    url = f"/v2/chains/{CHAIN}/metrics/txCount"
    messages = _metrics_refusal(metrics.get(url, params={name: HUGE}), 400)
    assert messages == [
        f"{name} must not be greater than {2**63 - 1 if name != 'pageSize' else 2160}"
    ]
    negative = _metrics_refusal(metrics.get(url, params={name: "-" + HUGE}), 400)
    assert negative[0].startswith(f"{name} must not be less than")


@pytest.mark.parametrize(
    "path", [f"/v2/chains/{HUGE}/metrics/txCount", f"/v1/avg_tps/{HUGE}", "/v1/avg_tps/²"]
)
def test_metrics_huge_chain_ids(metrics: httpx.Client, path: str) -> None:
    assert _metrics_refusal(metrics.get(path), 404)[0].startswith("chain ")


def test_metrics_empty_parameter_names(metrics: httpx.Client) -> None:
    reply = metrics.get(f"/v2/chains/{CHAIN}/metrics/txCount?=&&&=&")
    assert reply.status_code == 200, reply.text


def test_metrics_repeated_parameters(metrics: httpx.Client) -> None:
    url = f"/v2/chains/{CHAIN}/metrics/txCount?pageSize=10&pageSize=20"
    assert _metrics_refusal(metrics.get(url), 400) == ["pageSize is given more than once"]
    tps = _metrics_refusal(metrics.get(f"/v1/avg_tps/{CHAIN}?pageToken=a&pageToken=b"), 400)
    assert tps == ["pageToken is given more than once"]


def test_decimal_never_converts_what_python_refuses() -> None:
    assert decimal("0" * 5000 + "42") == 42
    assert decimal(HUGE) == 2**63
    assert decimal("²") is None and decimal("-1") is None and decimal("") is None
