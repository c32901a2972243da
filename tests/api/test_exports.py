"""Transaction exports: a job's lifecycle over a real server, its CSV against operation 5, the
cap (WarnTruncatedExport), take-over after a worker stops, and every bad request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.operations import export_csv
from snowfield.api.operations.export_worker import ExportWorker
from snowfield.api.ratelimit import MemoryLimiter
from snowfield.store import export_jobs
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from tests.api.conftest import (
    ALICE,
    BLOCKCHAIN_ID,
    BOB,
    CAROL,
    CHAIN,
    assert_error,
    assert_matches,
    frozen_clock,
    serve_app,
    walk,
)

EXPORT = "/v1/operations/transactions:export"
HEADER = "x-service-api-key"
DAY = "2023-11-14"  # every block of the builder's chain (1_700_000_000 + 2n)


@pytest.fixture(scope="module")
def served(filled: Database) -> Iterator[tuple[httpx.Client, str]]:
    app = create_data_app(
        filled,
        policy=RatePolicy(10**9, 10**9),
        limiter=MemoryLimiter(clock=frozen_clock),
        public_url="",
    )
    with serve_app(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        yield client, base


def evm(addresses: list[str], chains: list[str], **dates: str) -> dict[str, Any]:
    return {
        "type": "TRANSACTION_EXPORT_EVM",
        **dates,
        "options": {"addresses": addresses, "includeChains": chains},
    }


def start(client: httpx.Client, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = client.post(EXPORT, json=body, headers=headers)
    assert response.status_code == 201, response.text
    status: dict[str, Any] = response.json()
    assert_matches(status, "OperationStatusResponse")
    assert status["operationStatus"] == "RUNNING" and "metadata" not in status
    return status


def status_of(client: httpx.Client, operation_id: str, **headers: str) -> dict[str, Any]:
    response = client.get(f"/v1/operations/{operation_id}", headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert_matches(body, "OperationStatusResponse")
    return body


def download(client: httpx.Client, status: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    response = client.get(status["metadata"]["downloadUrl"])
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert "ratelimit-remaining" in response.headers
    return list(export_csv.read_rows(response.text))


def op5(client: httpx.Client, address: str, **params: Any) -> list[dict[str, Any]]:
    path = f"/v1/chains/{CHAIN}/addresses/{address}/transactions"
    query = {"pageSize": 7, "sortOrder": "asc", **params}
    return walk(client, path, "transactions", "ListTransactionsResponse", query)


def test_the_csv_rereads_to_exactly_what_operation_5_pages_through(
    filled: Database, served: tuple[httpx.Client, str]
) -> None:
    client, _ = served
    body = evm([ALICE, BOB.upper().replace("0X", "0x")], [str(CHAIN)], firstDate=DAY, lastDate=DAY)
    created = start(client, body)
    assert status_of(client, created["operationId"])["operationStatus"] == "RUNNING"
    assert ExportWorker(filled, max_rows=10_000).drain() == 1
    done = status_of(client, created["operationId"])
    assert done["operationStatus"] == "COMPLETED", done
    assert "code" not in done["metadata"] and "nextDate" not in done["metadata"]
    rows = download(client, done)
    expected = [(ALICE, item) for item in op5(client, ALICE)]
    expected += [(BOB, item) for item in op5(client, BOB)]
    assert len(expected) > 20 and rows == expected
    assert done["message"] == f"{len(expected)} transactions exported"
    # The chain named by its blockchain id, and a range of blocks by dates: none on the day after.
    later = start(client, evm([ALICE], [BLOCKCHAIN_ID], firstDate="2023-11-15"))
    ExportWorker(filled, max_rows=10_000).drain()
    assert download(client, status_of(client, later["operationId"])) == []


def test_a_long_history_is_capped_with_the_date_to_ask_again_from(
    filled: Database, served: tuple[httpx.Client, str]
) -> None:
    client, _ = served
    created = start(client, evm([CAROL], [str(CHAIN)]))
    ExportWorker(filled, max_rows=5).drain()
    done = status_of(client, created["operationId"])
    assert done["operationStatus"] == "COMPLETED_WITH_WARNING"
    assert done["metadata"]["code"] == "WarnTruncatedExport"
    assert done["metadata"]["nextDate"] == DAY
    everything = op5(client, CAROL)
    assert download(client, done) == [(CAROL, item) for item in everything[:5]]


def test_a_job_outlives_its_worker(filled: Database, served: tuple[httpx.Client, str]) -> None:
    client, _ = served
    created = start(client, evm([ALICE], [str(CHAIN)]))
    now = [2_000_000_000.0]
    # A worker claims it and stops (killed) before finishing: nobody else may take it while
    # its lease holds, the next worker does once it ran out, and starts the file again.
    gone = export_jobs.claim_job(filled, "gone", 60, clock=lambda: now[0])
    assert gone is not None and gone.id == created["operationId"]
    export_jobs.write_chunk(filled, gone.id, 0, "half a file")
    assert ExportWorker(filled, max_rows=10_000, clock=lambda: now[0]).run_once() is False
    now[0] += 61
    assert ExportWorker(filled, max_rows=10_000, clock=lambda: now[0]).drain() == 1
    done = status_of(client, created["operationId"])
    assert done["operationStatus"] == "COMPLETED"
    assert download(client, done) == [(ALICE, item) for item in op5(client, ALICE)]
    # The stopped worker's late progress report is refused.
    assert not export_jobs.report_progress(filled, gone.id, "gone", 60, 1, 1, "late")


def test_jobs_belong_to_their_key(filled: Database, served: tuple[httpx.Client, str]) -> None:
    client, _ = served
    _, mine = create_key(filled, "exporter")
    _, other = create_key(filled, "someone else")
    created = start(client, evm([ALICE], [str(CHAIN)]), **{HEADER: mine})
    ref = created["operationId"]
    assert status_of(client, ref, **{HEADER: mine})["operationId"] == ref
    assert_error(client.get(f"/v1/operations/{ref}", headers={HEADER: other}), 404, ref)
    assert_error(client.get(f"/v1/operations/{ref}"), 404, ref)
    ExportWorker(filled, max_rows=10_000).drain()
    url = status_of(client, ref, **{HEADER: mine})["metadata"]["downloadUrl"]
    assert client.get(url).status_code == 200  # the link itself is the credential
    assert_error(client.get(url.replace("token=", "token=x")), 404)
    assert_error(client.get(f"/v1/operations/{ref}/download"), 404)


@pytest.mark.parametrize(
    ("body", "status", "mentions"),
    [
        ({}, 400, "type"),
        ({"type": "TRANSACTION_EXPORT_SOMETHING", "options": {}}, 400, "type"),
        ({"type": "TRANSACTION_EXPORT_EVM"}, 400, "options"),
        (evm([], [str(CHAIN)]), 400, "addresses"),
        (evm(["0x12"], [str(CHAIN)]), 400, "addresses"),
        (evm([ALICE], []), 400, "includeChains"),
        (evm([ALICE], [str(CHAIN)], firstDate="2023-13-01"), 400, "firstDate"),
        (evm([ALICE], [str(CHAIN)], lastDate="yesterday"), 400, "lastDate"),
        (evm([ALICE], [str(CHAIN)], firstDate=DAY, lastDate="2023-11-13"), 400, "lastDate"),
        ({**evm([ALICE], [str(CHAIN)]), "extra": 1}, 400, "extra"),
        (evm([ALICE] * 2 + [f"0x{i:040x}" for i in range(100)], [str(CHAIN)]), 400, "100"),
        (evm([ALICE], ["999999"]), 404, "999999"),
        (
            {
                "type": "TRANSACTION_EXPORT_PRIMARY_NETWORK",
                "options": {"includeChains": ["p-chain"]},
            },
            404,  # this store indexes no primary network (tests/api/test_exports_primary.py)
            "primary network",
        ),
    ],
)
def test_bad_requests(
    served: tuple[httpx.Client, str], body: dict[str, Any], status: int, mentions: str
) -> None:
    client, _ = served
    assert_error(client.post(EXPORT, json=body), status, mentions)


def test_unknown_operations(served: tuple[httpx.Client, str]) -> None:
    client, _ = served
    assert_error(client.get("/v1/operations/aa22054a-cb7c-4a4e-9b83-59f2ede74138"), 404)
    assert_error(client.post(EXPORT, content=b"[1"), 400, "decode")
    assert_error(client.get(EXPORT), 405)


def test_a_stopping_worker_leaves_its_job_to_the_next(
    filled: Database, served: tuple[httpx.Client, str]
) -> None:
    client, _ = served
    created = start(client, evm([BOB], [str(CHAIN)]))
    stopping = ExportWorker(filled, max_rows=10_000)
    stopping.stop()
    assert stopping.run_once() is True  # claimed, stopped at its first chunk, released
    job = export_jobs.get_job(filled, created["operationId"])
    assert job is not None and job.status == "RUNNING"
    assert ExportWorker(filled, max_rows=10_000).drain() == 1
    done = status_of(client, created["operationId"])
    assert download(client, done) == [(BOB, item) for item in op5(client, BOB)]
