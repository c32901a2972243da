"""getVertexByHash over the vertices operations 14-15 list (test_vertices.py's store): every
listed vertex by its hash is the listed one; an unknown hash is 404, another network's X-Chain
id 400; the official client reads it."""

from __future__ import annotations

import httpx

from tests.api.conftest import assert_error, assert_matches
from tests.api.test_vertices import COUNT, MAINNET_X, _pages, api
from tests.clients.chainkit import Call, drive

__all__ = ["api"]  # the module fixture, shared


def test_every_vertex_by_its_hash(api: str) -> None:
    listed = _pages(f"{api}/v1/networks/fuji/blockchains/x-chain/vertices", {"pageSize": 7})
    assert len(listed) == COUNT
    for vertex in listed:
        got = httpx.get(
            f"{api}/v1/networks/fuji/blockchains/x-chain/vertices/{vertex['vertexHash']}"
        )
        assert got.status_code == 200, got.text
        assert_matches(got.json(), "XChainVertex")
        assert got.json() == vertex
    base = f"{api}/v1/networks/fuji/blockchains"
    unknown = "11111111111111111111111111111111LpoYY"
    assert_error(httpx.get(f"{base}/x-chain/vertices/{unknown}"), 404, "vertex")
    assert_error(httpx.get(f"{base}/{MAINNET_X}/vertices/{unknown}"), 400, "blockchainId")
    first = listed[0]["vertexHash"]
    [result] = drive(
        [Call("data.primaryNetwork.vertices.getByHash",
              {"network": "fuji", "blockchainId": "x-chain", "vertexHash": first})],
        data=api, network="fuji",
    )  # fmt: skip
    assert result.unwrap()["vertexHash"] == first
