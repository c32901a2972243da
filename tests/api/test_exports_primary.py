"""Primary-network transaction exports over the devnet's X demo (AVAX and asset transfers, NFT
mints, X→P exports imported on the P-Chain), indexed by the real primary indexer: each file
re-reads to exactly the items listLatestPrimaryNetworkTransactions pages through for the same
chain, address and range (oldest first); the staking type keeps that operation's staking
`txTypes`; the cap truncates with nextDate; bad requests answer 400/404; and the official client
starts one and reads its status."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.operations import export_primary
from snowfield.api.operations.export_worker import ExportWorker
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_bech32, hrp_for_network
from snowfield.formats.ids import ShortID
from snowfield.store.database import Database
from snowfield.store.primary_queries import STAKING_TX_TYPES
from snowfield.testing import open_database, serve_asgi, serve_devnet
from snowfield.workload.platform_demo import demo_secret
from snowfield.workload.x_demo import run_x_demo
from tests.api.conftest import assert_error, assert_matches
from tests.clients.chainkit import Call, drive
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary
from tests.node.test_node_apis import service

EXPORT = "/v1/operations/transactions:export"
NET = "/v1/networks/testnet/blockchains"
MAINNET_X = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"


@dataclass(frozen=True)
class Served:
    db: Database
    client: httpx.Client
    base: str
    wallets: list[str]  # bare bech32


@pytest.fixture(scope="module", params=_db_kinds())
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    with serve_devnet(validators=1) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        signers = [demo_secret(keys), *keys[:2]]
        asyncio.run(
            run_x_demo(
                devnet.base, signers, rounds=4, interval=0, stop=None, log=lambda _line: None
            )
        )
        info = service(devnet.base + "/ext/info", "info.getNetworkID", {})["result"]
        hrp = hrp_for_network(int(info["networkID"]))
        wallets = [format_bech32(hrp, ShortID.from_public_key(public_key_of(s)).raw)
                   for s in signers]  # fmt: skip
        with open_database(_url(request.param, tmp_path_factory.mktemp("xe"))) as db:
            asyncio.run(sync_primary(db, devnet.base))
            app = create_data_app(db, public_url="")
            with serve_asgi(app) as api, httpx.Client(base_url=api, timeout=60) as client:
                yield Served(db, client, api, wallets)


def _listed(s: Served, chain: str, **params: Any) -> list[dict[str, Any]]:
    """Every item listLatestPrimaryNetworkTransactions pages through, oldest first."""
    out: list[dict[str, Any]] = []
    query: dict[str, Any] = {"pageSize": 3, "sortOrder": "asc", **params}
    for _ in range(500):
        got = s.client.get(f"{NET}/{chain}/transactions", params=query)
        assert got.status_code == 200, got.text
        body = got.json()
        assert_matches(body, "PrimaryNetworkTransactionsResponse")
        out += body["transactions"]
        if "nextPageToken" not in body:
            return out
        query["pageToken"] = body["nextPageToken"]
    raise AssertionError("paging did not end")


def _export(s: Served, body: dict[str, Any], max_rows: int = 100_000) -> tuple[dict[str, Any], str]:
    started = s.client.post(EXPORT, json=body)
    assert started.status_code == 201, started.text
    assert_matches(started.json(), "OperationStatusResponse")
    assert started.json()["operationType"] == body["type"]
    assert ExportWorker(s.db, max_rows=max_rows).drain() >= 1
    status = s.client.get(f"/v1/operations/{started.json()['operationId']}").json()
    assert_matches(status, "OperationStatusResponse")
    got = s.client.get(status["metadata"]["downloadUrl"])
    assert got.status_code == 200 and got.headers["content-type"] == "text/csv; charset=utf-8"
    return status, got.text


def _by_chain(text: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for _, chain, item in export_primary.read_rows(text):
        out.setdefault(chain, []).append(item)
    return out


def _ids(s: Served) -> tuple[str, str]:
    row = s.db.query_one("SELECT pchain, xchain FROM primary_networks")
    assert row is not None
    return str(row[0]), str(row[1])


def test_an_export_re_reads_to_the_listed_items(served: Served) -> None:
    pchain, xchain = _ids(served)
    seen = 0
    for wallet in served.wallets:
        options = {"addresses": [f"X-{wallet}"], "includeChains": ["p-chain", "x-chain"]}
        body = {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": options}
        status, text = _export(served, body)
        assert status["operationStatus"] == "COMPLETED"
        files = _by_chain(text)
        listed_p = _listed(served, "p-chain", addresses=wallet)
        listed_x = _listed(served, "x-chain", addresses=wallet)
        assert files.get(pchain, []) == listed_p
        assert files.get(xchain, []) == listed_x
        assert {a for a, _, _ in export_primary.read_rows(text)} <= {wallet}
        seen += len(listed_p) * len(listed_x)
    assert seen, "no wallet has both P- and X-Chain transactions"


def test_a_date_range_and_the_staking_type(served: Served) -> None:
    wallet = served.wallets[0]
    every = _listed(served, "x-chain", addresses=wallet)
    day = every[len(every) // 2]["timestamp"]
    date = _date(day)
    start = day - day % 86_400
    body = {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "firstDate": date, "lastDate": date,
            "options": {"addresses": [wallet], "includeChains": ["x-chain"]}}  # fmt: skip
    _, text = _export(served, body)
    ranged = _listed(served, "x-chain", addresses=wallet, startTimestamp=start,
                     endTimestamp=start + 86_399)  # fmt: skip
    assert ranged and [i for _, _, i in export_primary.read_rows(text)] == ranged
    # the staking type: the listing's staking txTypes; every P-Chain tx without addresses
    _, text = _export(served, {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING",
                               "options": {"includeChains": ["p-chain"]}})  # fmt: skip
    staking = _listed(served, "p-chain", txTypes=",".join(STAKING_TX_TYPES))
    assert [i for _, _, i in export_primary.read_rows(text)] == staking
    _, text = _export(served, {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE",
                               "options": {"includeChains": ["p-chain"]}})  # fmt: skip
    assert [i for _, _, i in export_primary.read_rows(text)] == _listed(served, "p-chain")


def _date(unix: int) -> str:
    return datetime.datetime.fromtimestamp(unix, datetime.UTC).date().isoformat()


def test_the_cap_truncates_with_next_date(served: Served) -> None:
    wallet = served.wallets[0]
    every = _listed(served, "x-chain", addresses=wallet)
    assert len(every) > 3
    body = {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK",
            "options": {"addresses": [wallet], "includeChains": ["x-chain"]}}  # fmt: skip
    status, text = _export(served, body, max_rows=3)
    assert status["operationStatus"] == "COMPLETED_WITH_WARNING"
    assert status["metadata"]["code"] == "WarnTruncatedExport"
    assert status["metadata"]["nextDate"] == _date(every[3]["timestamp"])
    assert [i for _, _, i in export_primary.read_rows(text)] == every[:3]


@pytest.mark.parametrize(
    ("options", "status", "mentions"),
    [
        ({}, 400, "includeChains"),
        ({"includeChains": []}, 400, "includeChains"),
        ({"includeChains": ["q-chain"]}, 400, "includeChains"),
        ({"includeChains": [MAINNET_X]}, 400, MAINNET_X),
        ({"includeChains": ["c-chain"]}, 404, "c-chain"),
        ({"includeChains": ["p-chain"], "addresses": ["avax1nope"]}, 400, "avax1nope"),
        ({"includeChains": ["p-chain"], "addresses": "x"}, 400, "addresses"),
        ({"includeChains": ["p-chain"], "extra": 1}, 400, "extra"),
    ],
)
def test_bad_requests(served: Served, options: dict[str, Any], status: int, mentions: str) -> None:
    body = {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": options}
    assert_error(served.client.post(EXPORT, json=body), status, mentions)
    bad_date = {**body, "options": {"includeChains": ["p-chain"]}, "firstDate": "2023-02-30"}
    assert_error(served.client.post(EXPORT, json=bad_date), 400, "firstDate")


def test_the_official_client_starts_one_and_reads_it(served: Served) -> None:
    body = {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING",
            "options": {"addresses": served.wallets[:1], "includeChains": ["p-chain"]}}  # fmt: skip
    (started,) = drive([Call("data.operations.exportTransactions", body)], data=served.base)
    created = started.unwrap()
    assert created["operationStatus"] == "RUNNING"
    ExportWorker(served.db, max_rows=100).drain()
    (result,) = drive(
        [Call("data.operations.getResult", {"operationId": created["operationId"]})],
        data=served.base,
    )
    done = result.unwrap()
    assert done["operationStatus"] == "COMPLETED" and "downloadUrl" in done["metadata"]
