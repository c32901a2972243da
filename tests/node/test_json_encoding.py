"""`encoding: "json"` over HTTP: every P- and X-Chain block and tx the demos produce is served as
JSON (the renderings are checked against avalanchego's own expectations in tests/formats), its
ids agree with the hex form's bytes, and the index API refuses json as the real node does."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from typing import Any

import pytest

from snowfield.formats.cb58 import encode_cb58
from snowfield.formats.exchange import rendering as x_rendering
from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.platform import rendering as p_rendering
from snowfield.formats.platform.avax_json import JsonContext
from snowfield.formats.platform.blocks import decode_block
from snowfield.testing import RunningNode, serve_devnet
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from snowfield.workload.x_demo import run_x_demo
from tests.node.test_node_apis import service


def call(url: str, method: str, params: dict[str, Any]) -> Any:
    reply = service(url, method, params)
    assert "error" not in reply, reply
    return reply["result"]


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet(validators=2) as node:
        keys = [k.private_key for k in node.node.dev_keys]
        asyncio.run(run_platform_demo(node.base, demo_secret(keys), lambda _: None))
        asyncio.run(run_x_demo(node.base, keys[-3:], rounds=3, interval=0.0, stop=None, log=print))
        yield node


def _id(data: bytes) -> str:
    return encode_cb58(hashlib.sha256(data).digest())


def test_every_p_chain_block_and_tx_as_json(devnet: RunningNode) -> None:
    p = devnet.base + "/ext/bc/P"
    height = int(call(p, "platform.getHeight", {})["height"])
    kinds: set[str] = set()
    for h in range(height + 1):
        hexed = call(p, "platform.getBlockByHeight", {"height": h, "encoding": "hex"})
        raw = decode_hex(hexed["block"])
        block = call(p, "platform.getBlockByHeight", {"height": h, "encoding": "JSON"})
        assert block["encoding"] == "json"
        assert block["block"]["id"] == _id(raw) and block["block"]["height"] == h
        assert block["block"] == p_rendering.block_json(decode_block(raw), JsonContext(12345, "P"))
        by_id = call(p, "platform.getBlock", {"blockID": _id(raw), "encoding": "json"})
        assert by_id == block
        decoded = decode_block(raw)
        kinds.add(type(decoded).__name__)
        embedded = block["block"].get("txs") or []
        if "tx" in block["block"]:
            embedded = [*embedded, block["block"]["tx"]]
        for tx in embedded:
            got = call(p, "platform.getTx", {"txID": tx["id"], "encoding": "json"})
            assert got == {"tx": tx, "encoding": "json"}
            hex_tx = call(p, "platform.getTx", {"txID": tx["id"]})["tx"]
            assert _id(decode_hex(hex_tx)) == tx["id"]
            kinds.add(_kind(tx["unsignedTx"]))
    # the demo's flows: stakers, subnet, chain, L1 conversion, the rewards' proposal blocks
    assert {"BanffStandardBlock", "BanffProposalBlock", "BanffCommitBlock"} <= kinds
    assert {"validator+signer", "delegator", "owner", "chainName", "validators", "txID"} <= kinds
    addresses = [
        a
        for tx in _all_outputs(
            call(p, "platform.getBlockByHeight", {"height": 1, "encoding": "json"})
        )
        for a in tx
    ]
    assert all(a.startswith("P-local1") for a in addresses)


def _kind(unsigned: dict[str, Any]) -> str:
    """A tx type by the fields only it renders."""
    if "signer" in unsigned:
        return "validator+signer"
    if "validator" in unsigned and "rewardsOwner" in unsigned:
        return "delegator"
    for field in ("owner", "chainName", "validators", "txID", "time", "sourceChain"):
        if field in unsigned:
            return field
    return "other"


def _all_outputs(block: dict[str, Any]) -> list[list[str]]:
    txs = block["block"].get("txs") or []
    return [o["output"]["addresses"] for t in txs for o in t["unsignedTx"]["outputs"]]


def test_every_x_chain_block_and_tx_as_json(devnet: RunningNode) -> None:
    x = devnet.base + "/ext/bc/X"
    height = int(call(x, "avm.getHeight", {})["height"])
    seen: set[str] = set()
    for h in range(height + 1):
        raw = decode_hex(call(x, "avm.getBlockByHeight", {"height": h})["block"])
        block = call(x, "avm.getBlockByHeight", {"height": h, "encoding": "json"})["block"]
        assert block["id"] == _id(raw) and block["height"] == h
        assert block == x_rendering.block_json(StandardBlock.decode(raw), JsonContext(12345, "X"))
        assert call(x, "avm.getBlock", {"blockID": block["id"], "encoding": "json"})["block"] == (
            block
        )
        for tx in block["txs"]:
            got = call(x, "avm.getTx", {"txID": tx["id"], "encoding": "json"})
            assert got == {"tx": tx, "encoding": "json"}
            seen.update(tx["unsignedTx"])
            seen.update(c["fxID"] for c in tx["credentials"])
    # the demo's transfers, exports and NFT mints (with the nftfx's own credentials)
    assert {"operations", "destinationChain"} <= seen
    assert "qd2U4HDWUvMrVUeTcCHp6xH3Qpnn1XbU5MDdnBoiifFqvgXwT" in seen
    genesis_asset = call(x, "avm.getAssetDescription", {"assetID": "AVAX"})["assetID"]
    asset_tx = call(x, "avm.getTx", {"txID": genesis_asset, "encoding": "json"})["tx"]
    assert asset_tx["unsignedTx"]["symbol"] == "AVAX" and asset_tx["id"] == genesis_asset


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/ext/index/P/block", "index.getLastAccepted"),
        ("/ext/index/X/block", "index.getLastAccepted"),
        ("/ext/index/X/tx", "index.getContainerByIndex"),
        ("/ext/index/C/block", "index.getContainerRange"),
    ],
)
def test_index_api_refuses_json_as_the_real_node(
    devnet: RunningNode, path: str, method: str
) -> None:
    """avalanchego's index API formats container bytes with formatting.Encode, which has no JSON
    form: `unsupported encoding in method` for every method."""
    params = {"encoding": "json", "index": 0, "startIndex": 0, "numToFetch": 1}
    reply = service(devnet.base + path, method, params)
    assert reply["error"]["message"] == "unsupported encoding in method"


def test_json_refused_where_bytes_are_served(devnet: RunningNode) -> None:
    p = devnet.base + "/ext/bc/P"
    reply = service(
        p,
        "platform.getUTXOs",
        {"addresses": ["P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"], "encoding": "json"},
    )
    assert reply["error"]["message"] == "unsupported encoding in method"
    assert (
        service(
            p,
            "platform.getTx",
            {"txID": "11111111111111111111111111111111LpoYY", "encoding": "xml"},
        )["error"]["message"]
        == "invalid encoding"
    )
