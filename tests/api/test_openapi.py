"""The OpenAPI document matches the service: schemathesis drives every operation from it and
checks statuses, content types, headers and bodies; the document names every route and bound."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks

from snowfield.api.app import OPERATIONS
from snowfield.store.database import Database
from tests.api.conftest import CHAIN, DOCUMENT, api_client, assert_matches

schema = schemathesis.openapi.from_dict(DOCUMENT)
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
    checks.response_schema_conformance,
]


@pytest.fixture(scope="module")
def base_url(filled: Database) -> Iterator[str]:
    with api_client(filled) as client:
        yield str(client.base_url)


def _validate(case: Any, base_url: str) -> None:
    response = case.call_and_validate(base_url=base_url, checks=CHECKS)
    body = response.json()
    if response.status_code >= 400:
        assert_matches(body, "Error")
        assert body["statusCode"] == response.status_code
    else:
        assert response.status_code == 200


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_keeps_its_document(case: Any, base_url: str) -> None:
    _validate(case, base_url)
    if "chainId" in (case.path_parameters or {}):
        # Generated chain ids rarely name a chain; the same request on the indexed chain
        # exercises the 200 bodies as well.
        case.path_parameters["chainId"] = str(CHAIN)
        _validate(case, base_url)


def test_served_document_is_the_generated_one(base_url: str) -> None:
    served = httpx.get(base_url + "/openapi.json").json()
    assert served == DOCUMENT | {"info": served["info"]}
    paths = {op.path for op in OPERATIONS}
    assert set(served["paths"]) == paths and len(paths) == 13
    params = {
        (op.id, p["name"]): p["schema"]
        for path in served["paths"].values()
        for op_doc in path.values()
        for p in op_doc["parameters"]
        for op in OPERATIONS
        if op.id == op_doc["operationId"]
    }
    assert params[("listTransactions", "pageSize")] == {
        "type": "integer",
        "default": 10,
        "minimum": 1,
        "maximum": 100,
    }
    assert params[("listErc721Balances", "pageSize")]["maximum"] == 500
    assert params[("listBlockTransactions", "pageSize")] == {
        "type": "integer",
        "default": 0,
        "minimum": 0,
        "maximum": 100,
    }
    assert params[("listTransactions", "sortOrder")]["enum"] == ["asc", "desc"]
    for op_doc in (o for path in served["paths"].values() for o in path.values()):
        assert {"200", "400", "401", "403", "404", "429", "500", "502", "503"} <= set(
            op_doc["responses"]
        )


def test_requests_session_reaches_the_real_server(base_url: str) -> None:
    # schemathesis calls through `requests`: make sure it talks to the same server.
    assert requests.get(base_url + "/v1/chains", timeout=10).json()["chains"][0]["chainId"] == str(
        CHAIN
    )
