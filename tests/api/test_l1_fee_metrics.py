"""The L1 validator fee metrics over the devnet's P-Chain demo (a subnet converted to an L1 with
a validator paying the continuous fee, then the network clock a day on), indexed by the real
primary indexer: every day of every metric equals the per-second brute force over the indexed
rows (tests/metrics/brute_l1_fees.py), what the validation paid is its deposit less the
balance platform.getL1Validator reports, and the official client validates each operation."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.store import primary
from snowfield.store.buckets import bucket_start
from snowfield.store.database import Database
from snowfield.testing import RunningNode, open_database, serve_devnet
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary
from tests.metrics import brute_l1_fees
from tests.metrics.traffic import serve_metrics

P_ID = "11111111111111111111111111111111LpoYY"
UNKNOWN = "2YYCZGHjqnbw1MzQ5fGrTp3SjqUu8y1J1xeW4yuhdXe4LoUVVG"


@dataclass(frozen=True)
class Indexed:
    db: Database
    devnet: RunningNode
    subnet: str


@pytest.fixture(scope="module", params=_db_kinds())
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Indexed]:
    with serve_devnet(validators=2) as devnet:
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        report = asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        url = _url(request.param, Path(tmp_path_factory.mktemp("l1fees")))
        with open_database(url) as opened:
            asyncio.run(sync_primary(opened, devnet.base))
            yield Indexed(opened, devnet, report.subnet_id)


def _last_day(db: Database) -> int:
    done = primary.checkpoint(db, P_ID)
    assert done is not None
    return bucket_start("day", int(done.timestamp))


def _points(body: dict[str, Any]) -> list[tuple[int, int]]:
    assert set(body) == {"results"}, body
    return [(p["timestamp"], p["value"]) for p in body["results"]]


def _validations(db: Database) -> list[tuple[str, str, int]]:
    """(validation id, node id, deposit) of every added validation."""
    return [
        (str(v), str(n), int(a))
        for v, n, a in db.query(
            "SELECT validation_id, node_id, amount FROM l1_fee_events WHERE kind = 'add'"
        )
    ]


def test_l1_fee_metrics_equal_brute_force(indexed: Indexed) -> None:
    db, last_day = indexed.db, _last_day(indexed.db)
    expected = brute_l1_fees.days(db, P_ID)
    validations = _validations(db)
    assert validations and expected, "the demo's L1 validator paid nothing"
    cases: list[tuple[str, str, str, str]] = [  # path, scope, member, kind
        ("/v2/validators/metrics/totalValidatorFeesDaily", "all", "", "fees"),
        ("/v2/validators/metrics/totalCumulativeFeesDaily", "all", "", "cumulative"),
        ("/v2/validators/metrics/totalPayingValidatorsDaily", "all", "", "payers"),
        (f"/v2/subnet/{indexed.subnet}/metrics/perSubnetDailyFeesPaid", "subnet",
         indexed.subnet, "fees"),
        (f"/v2/subnet/{indexed.subnet}/metrics/perSubnetCumulativeFeesPaid", "subnet",
         indexed.subnet, "cumulative"),
        (f"/v2/subnet/{indexed.subnet}/metrics/perSubnetPayingValidators", "subnet",
         indexed.subnet, "payers"),
    ]  # fmt: skip
    for v, node, _ in validations:
        cases += [
            (f"/v2/validation/{v}/metrics/validationFeesDaily", "validation", v, "fees"),
            (f"/v2/validation/{v}/metrics/validationCumulativeFeesDaily", "validation", v,
             "cumulative"),
            (f"/v2/validator/{node}/metrics/perNodeDailyFeesPaid", "node", node, "fees"),
            (f"/v2/validator/{node}/metrics/perNodeCumulativeFeesPaid", "node", node,
             "cumulative"),
        ]  # fmt: skip
    with serve_metrics(db) as base, httpx.Client(base_url=base) as client:
        for path, scope, member, kind in cases:
            got = client.get(path)
            assert got.status_code == 200, (path, got.text)
            want = brute_l1_fees.series(expected, scope, member, kind, last_day)
            assert _points(got.json()) == want, path
            assert want and want[0][0] == last_day
        # a range: only its days
        path = cases[0][0]
        every = _points(client.get(path).json())
        first = every[-1][0]
        ranged = client.get(path, params={"startTimestamp": first + 1, "endTimestamp": first + 1})
        assert _points(ranged.json()) == [every[-1]]
        assert _points(client.get(path, params={"startTimestamp": last_day + 86_400}).json()) == []


def test_a_validation_paid_its_deposit_less_the_node_s_balance(indexed: Indexed) -> None:
    with serve_metrics(indexed.db) as base, httpx.Client(base_url=base) as client:
        for v, _, deposit in _validations(indexed.db):
            got = httpx.post(
                f"{indexed.devnet.base}/ext/bc/P",
                json={"jsonrpc": "2.0", "id": 1, "method": "platform.getL1Validator",
                      "params": {"validationID": v}},
            ).json()["result"]  # fmt: skip
            body = client.get(f"/v2/validation/{v}/metrics/validationCumulativeFeesDaily").json()
            paid = body["results"][0]["value"]
            assert paid > 0 and paid == deposit - int(got["balance"]), (v, got)


def test_bad_input_answers_400_or_404(indexed: Indexed) -> None:
    v, node, _ = _validations(indexed.db)[0]
    cases = [
        ("/v2/validators/metrics/nope", 400),
        ("/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=-1", 400),
        ("/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=x", 400),
        ("/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=5&endTimestamp=4", 400),
        (f"/v2/validation/{v}/metrics/perNodeDailyFeesPaid", 400),
        ("/v2/validation/abc/metrics/validationFeesDaily", 400),
        (f"/v2/validation/{UNKNOWN}/metrics/validationFeesDaily", 404),
        ("/v2/validator/NodeID-xyz/metrics/perNodeDailyFeesPaid", 400),
        (f"/v2/validator/{node}/metrics/validationFeesDaily", 400),
        ("/v2/validator/NodeID-JQPadXEMWtRtJyXrisyDNWuXKSjSf9D36/metrics/perNodeDailyFeesPaid",
         404),
        ("/v2/subnet/zz/metrics/perSubnetDailyFeesPaid", 400),
        (f"/v2/subnet/{P_ID}/metrics/perSubnetDailyFeesPaid", 404),  # no L1 validators
        (f"/v2/subnet/{UNKNOWN}/metrics/nope", 400),
    ]  # fmt: skip
    with serve_metrics(indexed.db) as base, httpx.Client(base_url=base) as client:
        for path, status in cases:
            got = client.get(path)
            assert got.status_code == status, (path, got.text)
            body = got.json()
            assert set(body) == {"message", "statusCode", "error"} and body["statusCode"] == status


def test_the_official_client_reads_every_operation(indexed: Indexed) -> None:
    v, node, _ = _validations(indexed.db)[0]
    with serve_metrics(indexed.db) as base, httpx.Client(base_url=base) as client:
        calls = [
            (Call("metrics.l1Validators.listMetrics", {"metric": "totalCumulativeFeesDaily"}),
             "/v2/validators/metrics/totalCumulativeFeesDaily"),
            (Call("metrics.l1Validators.getMetricsByValidationId",
                  {"l1ValidationId": v, "metric": "validationFeesDaily"}),
             f"/v2/validation/{v}/metrics/validationFeesDaily"),
            (Call("metrics.l1Validators.getMetricsByNodeId",
                  {"nodeId": node, "metric": "perNodeCumulativeFeesPaid"}),
             f"/v2/validator/{node}/metrics/perNodeCumulativeFeesPaid"),
            (Call("metrics.l1Validators.getMetricsBySubnetId",
                  {"subnetId": indexed.subnet, "metric": "perSubnetPayingValidators"}),
             f"/v2/subnet/{indexed.subnet}/metrics/perSubnetPayingValidators"),
        ]  # fmt: skip
        results = drive([c for c, _ in calls], data=base, metrics=base)
        for (call, path), result in zip(calls, results, strict=True):
            body = result.unwrap()
            assert body["results"] == client.get(path).json()["results"], call.fn
            assert body["results"], call.fn


def test_a_store_indexed_before_the_ledger_replays_it_from_the_node(indexed: Indexed) -> None:
    """A P-Chain indexed before schema 20 has blocks but no ledger: the next sync fetches the
    blocks from the first L1 tx on again and leaves the ledger as a lockstep one."""
    db = indexed.db
    tables = ("l1_fee_days", "l1_fee_balances", "l1_fee_events", "l1_fee_ledger")
    before = {t: db.query(f"SELECT * FROM {t} ORDER BY 1, 2, 3") for t in tables}
    assert before["l1_fee_days"]
    with db.transaction() as w:
        for table in tables:
            w.execute(f"DELETE FROM {table}")
    asyncio.run(sync_primary(db, indexed.devnet.base))
    assert {t: db.query(f"SELECT * FROM {t} ORDER BY 1, 2, 3") for t in tables} == before
