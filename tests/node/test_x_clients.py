"""@avalabs/avalanchejs 5.2, unmodified, drives the X-Chain of a devnet: a BaseTx, and atomic
moves X→P, X→C and C→X with their imports, with the devnet's network id and posing as Fuji."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snowfield.crypto.keys import EWOQ_KEY
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address
from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.exchange.txs import CreateAssetTx, Tx
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ShortID
from snowfield.formats.proposervm import ProposerBlock
from snowfield.formats.vertex import decode_vertex
from snowfield.testing import RunningNode, run_node_script, serve_devnet
from snowfield.workload.xwallet import XWallet, x_network
from tests.node.test_node_apis import service

SCRIPT = (Path(__file__).parent / "clients" / "ajs_x_flows.mjs").read_text()
SDK_SCRIPT = (Path(__file__).parent / "clients" / "sdk_x_flows.mjs").read_text()
AMOUNT = 2_000_000_000  # nAVAX moved by each flow
GWEI = 10**9


@pytest.fixture(scope="module", params=[12345, 5], ids=["local", "fuji-id"])
def devnet(request: pytest.FixtureRequest) -> Iterator[RunningNode]:
    with serve_devnet(network_id=request.param, x_dag_vertices=2) as node:
        yield node


def _run(node: RunningNode) -> dict[str, Any]:
    recipient = hashlib.sha256(b"x-recipient").digest()[:20]
    ewoq = ShortID.from_public_key(public_key_of(EWOQ_KEY))
    args = {
        "recipient": "0x" + recipient.hex(),
        "amount": str(AMOUNT),
        "ewoq": "0x" + ewoq.raw.hex(),
    }
    out = run_node_script(
        SCRIPT,
        node.base,
        "0x" + EWOQ_KEY.hex(),
        json.dumps(args),
        packages=("@avalabs/avalanchejs",),
    )
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def test_avalanchejs_x_chain_flows(devnet: RunningNode) -> None:
    result = _run(devnet)
    ids = devnet.node.ids
    assert (result["x"], result["avax"]) == (ids.x_chain, ids.avax_asset)
    fee = int(result["baseTxFee"])
    assert fee == 1_000_000
    for name in ("base", "xExportP", "xExportC", "xImportC"):
        assert result[name]["accepted"], name
        assert result[name]["roundTrip"], name  # avm.getTx gives back the issued bytes
    assert result["recipientBalance"] == str(AMOUNT)
    assert result["pImportX"] == {**result["pImportX"], "utxos": 1, "committed": True}
    c_import = result["cImportX"]
    assert c_import["accepted"] and c_import["utxos"] == 1
    # 9-decimal AVAX on X becomes 18-decimal on C: the balance grows by exactly what the
    # import credits (the imported amount minus the fee the client computed)
    assert int(c_import["grew"]) == int(c_import["credited"]) * GWEI
    assert int(c_import["credited"]) < int(c_import["imported"]) == AMOUNT
    assert result["cExportX"]["accepted"]
    assert result["xImportC"]["utxos"] == 1
    # ewoq paid: 4 X txs' fees, the amounts moved away, and got back the C→X import less fee
    start = 300_000_000 * GWEI
    spent = AMOUNT * 3 + fee * 4 - AMOUNT
    assert int(result["balance"]) == start - spent


def test_x_index_walks_vertices_then_blocks(devnet: RunningNode) -> None:
    """Every vertex and block is reachable by index and by id; each X tx is in exactly one."""
    _run(devnet)  # enough txs to cross the linearization point (2 vertices)

    def index(name: str, method: str, params: dict[str, Any]) -> Any:
        reply = service(f"{devnet.base}/ext/index/X/{name}", method, params)
        assert "error" not in reply, reply
        return reply["result"]

    def walk(name: str) -> list[dict[str, Any]]:
        last = int(index(name, "index.getLastAccepted", {})["index"])
        found = index(name, "index.getContainerRange", {"startIndex": 0, "numToFetch": last + 1})
        for container in found:
            by_id = index(name, "index.getContainerByID", {"id": container["id"]})
            assert by_id == container
        return list(found)

    vertices = [decode_vertex(decode_hex(c["bytes"])) for c in walk("vtx")]
    assert [v.stop for v in vertices] == [False, False, True]
    blocks = [
        StandardBlock.decode(ProposerBlock.parse(decode_hex(c["bytes"])).inner_block)
        for c in walk("block")
    ]
    assert [b.height for b in blocks] == list(range(1, len(blocks) + 1))
    in_containers = [t for v in vertices for t in v.tx_ids] + [t.id for b in blocks for t in b.txs]
    txs = [c["id"] for c in walk("tx")]
    assert sorted(map(str, in_containers)) == sorted(txs)
    assert len(set(txs)) == len(txs)


def test_avalanche_sdk_x_chain_flows_posing_as_fuji() -> None:
    """@avalanche-sdk/client's X builders (they need network id 5): a BaseTx and every atomic
    direction through X, each waited for with the SDK's own waitForTxn."""
    recipient = format_address("X", "fuji", hashlib.sha256(b"sdk-x-recipient").digest()[:20])
    with serve_devnet(network_id=5) as node:
        args = {"recipient": recipient, "amount": str(AMOUNT)}
        out = run_node_script(
            SDK_SCRIPT,
            node.base,
            "0x" + EWOQ_KEY.hex(),
            json.dumps(args),
            packages=("@avalanche-sdk/client", "@avalabs/avalanchejs"),
        )
        result = json.loads(out.strip().splitlines()[-1])
        assert result["recipient"] == str(AMOUNT)
        assert result["status"] == "Accepted"
        names = ["xBase", "xExportP", "xImportP", "xExportC", "xImportC"]
        for name in names:
            reply = service(
                f"{node.base}/ext/bc/X", "avm.getTxStatus", {"txID": result["txs"][name]}
            )
            assert reply["result"] == {"status": "Accepted"}, name
        for name in ("pImportX", "pExportX"):
            reply = service(
                f"{node.base}/ext/bc/P", "platform.getTxStatus", {"txID": result["txs"][name]}
            )
            assert reply["result"] == {"status": "Committed"}, name


ASSETS_SCRIPT = (Path(__file__).parent / "clients" / "ajs_x_assets.mjs").read_text()


def test_avalanchejs_creates_an_asset_and_reads_nft_txs() -> None:
    """A fungible CreateAssetTx assembled with avalanchejs's classes is accepted; the NFT
    CreateAssetTx and mint OperationTx our wallet issued, and their UTXOs, parse in its AVM
    codec and re-encode byte for byte."""
    with serve_devnet() as node:

        async def nft_flow() -> tuple[list[bytes], list[bytes]]:
            wallet = XWallet(
                node.base, await x_network(node.base), node.node.dev_keys[0].private_key
            )
            art = await wallet.create_nft("Snow Art", "ART", groups=2)
            minted = await wallet.mint_nft(art, 0, b"first", wallet.address)
            utxos = [u.encode() for u in await wallet.utxos() if u.asset_id == art]
            await wallet.close()
            chain = node.node.chains["X"].runtime.chain
            txs = [tx.encode() for tx in (chain.tx(art), chain.tx(minted)) if tx is not None]
            return txs, utxos

        nft_txs, nft_utxos = asyncio.run(nft_flow())
        assert len(nft_txs) == 2 and len(nft_utxos) == 2  # group 1's right and the NFT
        ewoq = ShortID.from_public_key(public_key_of(EWOQ_KEY))
        args = {
            "ewoq": "0x" + ewoq.raw.hex(),
            "supply": "1000000",
            "nftTxs": ["0x" + t.hex() for t in nft_txs],
            "nftUtxos": ["0x" + u.hex() for u in nft_utxos],
        }
        out = run_node_script(
            ASSETS_SCRIPT,
            node.base,
            "0x" + EWOQ_KEY.hex(),
            json.dumps(args),
            packages=("@avalabs/avalanchejs",),
        )
        result = json.loads(out.strip().splitlines()[-1])
        assert result["status"] == "Accepted"
        assert result["txID"] == result["computedID"]
        assert result["asset"]["name"] == "Client Token"
        assert result["asset"]["symbol"] == "CLT"
        assert int(result["asset"]["denomination"]) == 3
        assert result["balance"] == "1000000"
        for parsed, raw in zip(result["nftTxs"], nft_txs, strict=True):
            tx = Tx.decode(raw)
            assert parsed["unsigned"] == "0x" + tx.unsigned_bytes().hex()
            signatures = [s for c in tx.credentials for s in getattr(c, "signatures", ())]
            assert parsed["signatures"] == ["0x" + s.hex() for s in signatures]
        assert result["nftUtxos"] == args["nftUtxos"]
        created = Tx.decode(
            decode_hex(
                service(f"{node.base}/ext/bc/X", "avm.getTx", {"txID": result["txID"]})["result"][
                    "tx"
                ]
            )
        )
        assert isinstance(created.unsigned, CreateAssetTx)


def test_avalanche_sdk_x_base_tx_on_the_local_network_id() -> None:
    """With network id 12345 the SDK's X BaseTx works too (its cross-chain builders do not)."""
    recipient = format_address("X", "local", hashlib.sha256(b"sdk-local").digest()[:20])
    with serve_devnet() as node:
        args = {"recipient": recipient, "amount": str(AMOUNT), "baseOnly": True, "hrp": "local"}
        out = run_node_script(
            SDK_SCRIPT,
            node.base,
            "0x" + EWOQ_KEY.hex(),
            json.dumps(args),
            packages=("@avalanche-sdk/client", "@avalabs/avalanchejs"),
        )
        result = json.loads(out.strip().splitlines()[-1])
        assert result["recipient"] == str(AMOUNT)
        tx_id = result["txs"]["xBase"]
        reply = service(f"{node.base}/ext/bc/X", "avm.getTxStatus", {"txID": tx_id})
        assert reply["result"] == {"status": "Accepted"}
