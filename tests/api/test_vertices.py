"""Operations 14-15 over vertices as the indexer stores them (extracted from real-format vertex
bytes): latest first, by height, paging, the X-Chain ids and the errors."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snowfield.api.app import create_data_app
from snowfield.formats.ids import ID
from snowfield.formats.vertex import Vertex
from snowfield.indexer.extract.vertices import vertex_row
from snowfield.store import primary, vertices
from snowfield.store.database import Database
from snowfield.testing import serve_asgi
from tests.api.conftest import assert_error, assert_matches

XCHAIN = "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
FUJI_X = "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"
MAINNET_X = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"
COUNT = 25


def _vertices() -> list[Vertex]:
    out: list[Vertex] = []
    for i in range(COUNT):
        height = i // 3
        parents = tuple(sorted({v.id for v in out[-2:]}, key=lambda p: p.raw))
        txs = sorted((b"tx %d %d" % (i, k) for k in range(1 + i % 3)),
                     key=lambda t: hashlib.sha256(t).digest())  # fmt: skip
        out.append(Vertex(ID.from_string(XCHAIN), height, parents, tuple(txs)))
    return out


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = Database(str(tmp_path_factory.mktemp("vtx") / "v.db"))
    db.migrate()
    pchain = "11111111111111111111111111111111LpoYY"
    net = primary.PrimaryNetwork(pchain, 12345, "local", XCHAIN, None, "AVAX")
    primary.record_network(db, net)
    rows = [
        vertex_row(i, str(v.id), v.encode(), (1_700_000_000 + i) * 10**9)
        for i, v in enumerate(_vertices())
    ]
    vertices.write_vertices(db, XCHAIN, rows[:10], 10)
    vertices.write_vertices(db, XCHAIN, rows[10:], COUNT)
    with serve_asgi(create_data_app(db)) as url:
        yield url
    db.close()


def _pages(url: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token = None
    for _ in range(COUNT + 2):
        got = httpx.get(url, params={**params, **({"pageToken": token} if token else {})})
        assert got.status_code == 200, got.text
        body = got.json()
        assert_matches(body, "ListXChainVerticesResponse")
        assert body["chainInfo"]["chainName"] == "x-chain"
        items += body["vertices"]
        token = body.get("nextPageToken")
        if not token:
            return items
    raise AssertionError("paging did not end")


def test_latest_lists_every_vertex_once_newest_first(api: str) -> None:
    expected = _vertices()
    for chain in ("x-chain", FUJI_X):
        got = _pages(f"{api}/v1/networks/fuji/blockchains/{chain}/vertices", {"pageSize": 4})
        assert [v["vertexIndex"] for v in got] == list(range(COUNT - 1, -1, -1))
        assert [v["vertexHash"] for v in got] == [str(v.id) for v in reversed(expected)]
    first = got[-1]
    assert first["vertexHeight"] == 0 and first["parentHashes"] == []
    assert first["txCount"] == 1 and first["transactions"] == [str(expected[0].tx_ids[0])]
    assert first["vertexSizeBytes"] == len(expected[0].encode())
    assert first["vertexTimestamp"] == 1_700_000_000


def test_by_height(api: str) -> None:
    url = f"{api}/v1/networks/testnet/blockchains/x-chain/vertices:listByHeight"
    asc = _pages(url, {"vertexHeight": 2, "pageSize": 1, "sortOrder": "asc"})
    assert [v["vertexIndex"] for v in asc] == [6, 7, 8]
    desc = _pages(url, {"vertexHeight": 2})
    assert [v["vertexIndex"] for v in desc] == [8, 7, 6]
    assert _pages(url, {"vertexHeight": 1000}) == []


def test_errors(api: str) -> None:
    base = f"{api}/v1/networks/fuji/blockchains"
    assert_error(httpx.get(f"{base}/x-chain/vertices:listByHeight"), 400, "vertexHeight")
    bad = httpx.get(f"{base}/x-chain/vertices:listByHeight", params={"vertexHeight": -1})
    assert_error(bad, 400, "vertexHeight")
    assert_error(httpx.get(f"{base}/p-chain/vertices"), 400, "blockchainId")
    assert_error(httpx.get(f"{base}/{MAINNET_X}/vertices"), 400, "blockchainId")
    assert_error(httpx.get(f"{base}/x-chain/vertices", params={"pageSize": 101}), 400, "pageSize")
    mainnet = httpx.get(f"{api}/v1/networks/mainnet/blockchains/x-chain/vertices")
    assert_error(mainnet, 404, "mainnet")
    assert_error(httpx.get(f"{api}/v1/networks/devnet/blockchains/x-chain/vertices"), 400)
