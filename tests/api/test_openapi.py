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

from snowfield.aggregator.service import AggregatorService
from snowfield.api.app import OPERATIONS, create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.store.database import Database
from snowfield.testing import open_database, serve_devnet
from tests.api.conftest import CHAIN, DOCUMENT, api_client, assert_matches, serve_app

schema = schemathesis.openapi.from_dict(DOCUMENT)
# Operations 1-2 aggregate over a node: they run against a devnet below, with the rest offline.
AGGREGATION = ("aggregateSignatures", "getAggregatedSignatures")
offline = schema.exclude(operation_id=list(AGGREGATION))
aggregation = schema.include(operation_id=list(AGGREGATION))
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
    if response.status_code >= 400:
        body = response.json()
        assert_matches(body, "Error")
        assert body["statusCode"] == response.status_code
    else:  # the operation's own success status (reindexNft: 201, no body)
        success = case.operation.definition.raw["responses"]
        assert [str(response.status_code)] == [s for s in success if s.startswith("2")]


@offline.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_keeps_its_document(case: Any, base_url: str) -> None:
    _validate(case, base_url)
    if "chainId" in (case.path_parameters or {}):
        # Generated chain ids rarely name a chain; the same request on the indexed chain
        # exercises the 200 bodies as well.
        case.path_parameters["chainId"] = str(CHAIN)
        _validate(case, base_url)


@pytest.fixture(scope="module")
def aggregating_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The data API with signature aggregation over a devnet (short deadline: generated
    messages are never signed)."""
    folder = tmp_path_factory.mktemp("agg")
    with (
        serve_devnet(validators=3) as node,
        open_database(f"sqlite:///{folder / 'api.db'}") as db,
    ):
        service = AggregatorService(node.base, deadline=0.3)
        app = create_data_app(db, policy=RatePolicy(10**9, 10**9), signatures=service)
        with serve_app(app) as base:
            yield base


@aggregation.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_aggregation_operations_keep_their_document(case: Any, aggregating_url: str) -> None:
    _validate(case, aggregating_url)


def test_served_document_is_the_generated_one(base_url: str) -> None:
    served = httpx.get(base_url + "/openapi.json").json()
    assert served == DOCUMENT | {"info": served["info"]}
    paths = {op.path for op in OPERATIONS}
    assert set(served["paths"]) == paths
    # Every operation documented once: one method entry each (paths are shared by methods).
    assert sum(len(methods) for methods in served["paths"].values()) == len(OPERATIONS)
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
    success = {op.id: str(op.status) for op in OPERATIONS}
    assert success["reindexNft"] == "201"
    for op_doc in (o for path in served["paths"].values() for o in path.values()):
        statuses = {success[op_doc["operationId"]], "400", "401", "403", "404", "429", "500"}
        assert statuses | {"502", "503"} <= set(op_doc["responses"])


def test_requests_session_reaches_the_real_server(base_url: str) -> None:
    # schemathesis calls through `requests`: make sure it talks to the same server.
    assert requests.get(base_url + "/v1/chains", timeout=10).json()["chains"][0]["chainId"] == str(
        CHAIN
    )
