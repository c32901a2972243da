"""The official client (@avalanche-sdk/chainkit) over the operations group: exports (started,
then read back when the worker ran them), usage (paged logs included) and health."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.operations import export_csv
from snowfield.api.operations.export_worker import ExportWorker
from snowfield.api.operations.request_log import RequestLog
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from tests.api.conftest import ALICE, CHAIN, serve_app
from tests.clients.chainkit import Call, drive


@pytest.fixture(scope="module")
def served(filled: Database) -> Iterator[tuple[str, RequestLog]]:
    """The data API whose request log this test writes when it chooses (never on its own)."""
    log = RequestLog(filled, interval=3600)
    app = create_data_app(filled, policy=RatePolicy(10**9, 10**9), requests=log)
    with serve_app(app) as base:
        yield base, log


def test_the_client_accepts_every_operation_of_the_group(
    filled: Database, served: tuple[str, RequestLog]
) -> None:
    base, log = served
    key, secret = create_key(filled, "chainkit")
    export = {
        "type": "TRANSACTION_EXPORT_EVM",
        "firstDate": "2023-11-14",
        "lastDate": "2023-11-14",
        "options": {"addresses": [ALICE], "includeChains": [str(CHAIN)]},
    }
    started, health, live = drive(
        [
            Call("data.operations.exportTransactions", export),
            Call("data.healthCheck"),
            Call("data.liveCheck"),
        ],
        data=base,
        api_key=secret,
    )
    created = started.unwrap()
    assert created["operationStatus"] == "RUNNING"
    assert (
        health.unwrap()["status"] == "ok"
        and health.unwrap()["details"]["database"]["status"] == "up"
    )
    assert live.unwrap()["status"] == "ok"
    assert ExportWorker(filled, max_rows=10_000).drain() == 1
    asyncio.run(log.flush())  # the first three calls are in the log; the next ones are not
    result, logs, usage, subnet_rpc, rpc = drive(
        [
            Call("data.operations.getResult", {"operationId": created["operationId"]}),
            Call("data.usageMetrics.getLogs", {"pageSize": 1}, "all"),
            Call("data.usageMetrics.getUsage", {"groupBy": "requestPath"}),
            Call("data.usageMetrics.getSubnetRpcUsage", {"chainId": str(CHAIN)}),
            Call("data.usageMetrics.getRpcUsageMetrics", {"groupBy": "rpcMethod"}),
        ],
        data=base,
        api_key=secret,
    )
    done = result.unwrap()
    assert done["operationStatus"] == "COMPLETED"
    with httpx.Client(base_url=base) as ours:
        text = ours.get(done["metadata"]["downloadUrl"]).text
        every = ours.get(
            f"/v1/chains/{CHAIN}/addresses/{ALICE}/transactions",
            params={"pageSize": 100, "sortOrder": "asc"},
        ).json()["transactions"]
    assert [item for _, item in export_csv.read_rows(text)] == every
    pages = logs.all_pages()
    # The first drive's three calls, one log a page (the client followed every nextPageToken).
    assert len(pages) == 3 and all(len(p["logs"]) == 1 for p in pages)
    paths = sorted(p["logs"][0]["requestPath"] for p in pages)
    assert paths == ["/v1/health-check", "/v1/live-check", "/v1/operations/transactions:export"]
    assert all(p["orgId"] == key.id for p in pages)
    (day,) = usage.unwrap()["metrics"]
    assert sum(v["totalRequests"] for v in day["values"]) == 3
    assert subnet_rpc.unwrap() == {
        "aggregateDuration": "daily",
        "metrics": [],
        "chainId": str(CHAIN),
    }
    assert rpc.unwrap()["metrics"] == []
