"""Exports in `snowfield serve` as an operator runs it: the worker beside the servers finishes a
job, its absolute download link works, and the job and its file outlive a restart."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from snowfield.api.operations import export_csv
from snowfield.store.database import Database
from snowfield.testing import free_port
from tests.api.conftest import ALICE, CHAIN, ChainBuilder, add_chains
from tests.api.serve_process import serving


def test_serve_runs_exports_and_keeps_them_across_a_restart(tmp_path: Path) -> None:
    url = str(tmp_path / "s.db")
    db = Database(url)
    db.migrate()
    add_chains(db)
    ChainBuilder(db).add(6)
    db.close()
    port, log = free_port(), tmp_path / "serve.log"
    body = {
        "type": "TRANSACTION_EXPORT_EVM",
        "options": {"addresses": [ALICE], "includeChains": [str(CHAIN)]},
    }
    with serving(url, log, port=port) as base:
        created = httpx.post(f"{base}/v1/operations/transactions:export", json=body)
        assert created.status_code == 201, created.text
        ref = created.json()["operationId"]
        deadline = time.monotonic() + 60
        while (status := httpx.get(f"{base}/v1/operations/{ref}").json())[
            "operationStatus"
        ] == "RUNNING":
            assert time.monotonic() < deadline, status
            time.sleep(0.2)
        assert status["operationStatus"] == "COMPLETED", status
        link = status["metadata"]["downloadUrl"]
        assert link.startswith(f"{base}/v1/operations/{ref}/download?token=")
        first = httpx.get(link).text
        listed = httpx.get(
            f"{base}/v1/chains/{CHAIN}/addresses/{ALICE}/transactions",
            params={"pageSize": 100, "sortOrder": "asc"},
        ).json()["transactions"]
        assert [item for _, item in export_csv.read_rows(first)] == listed
    with serving(url, log, port=port) as base:
        again = httpx.get(f"{base}/v1/operations/{ref}").json()
        assert again == status
        assert httpx.get(link).text == first
