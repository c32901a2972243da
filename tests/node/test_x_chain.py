"""The X-Chain of a devnet through its public API, with the Python X wallet: assets, NFTs,
refusals with avalanchego's reasons, conflicts, the DAG's shape, and a restart that replays."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from pathlib import Path
from typing import Any

import pytest

from snowfield.errors import Conflict
from snowfield.formats.exchange import fxs
from snowfield.formats.exchange.txs import (
    BaseTx,
    CreateAssetTx,
    InitialState,
    Operation,
    OperationTx,
    Tx,
)
from snowfield.formats.hexcheck import decode_hex, encode_hex
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import BaseTxFields
from snowfield.formats.platform.secp256k1fx import Credential, Input
from snowfield.formats.vertex import decode_vertex
from snowfield.testing import RunningNode, serve_devnet
from snowfield.workload.xwallet import XWallet, x_network
from tests.node.test_node_apis import service

OTHER = ShortID(hashlib.sha256(b"x-other").digest()[:20])


def _x(node: RunningNode, method: str, params: dict[str, Any] | None = None) -> Any:
    return service(f"{node.base}/ext/bc/X", method, params or {})


async def _wallet(node: RunningNode) -> XWallet:
    return XWallet(node.base, await x_network(node.base), node.node.dev_keys[0].private_key)


def test_assets_nfts_and_dag(tmp_path: Path) -> None:
    with serve_devnet(x_dag_vertices=3, data_dir=tmp_path) as node:

        async def flow() -> dict[str, Any]:
            wallet = await _wallet(node)
            token = await wallet.create_asset("Snow Token", "SNOW", 2, 10_000)
            art = await wallet.create_nft("Snow Art", "ART", groups=2)
            minted = await wallet.mint_nft(art, 1, b"first", OTHER)
            sent = await wallet.send(OTHER, 7_000_000)
            utxos = await wallet.utxos()
            await wallet.close()
            return {"token": token, "art": art, "minted": minted, "sent": sent, "utxos": utxos}

        done = asyncio.run(flow())
        token, art = done["token"], done["art"]
        description = _x(node, "avm.getAssetDescription", {"assetID": str(token)})["result"]
        assert description == {
            "assetID": str(token),
            "name": "Snow Token",
            "symbol": "SNOW",
            "denomination": "2",
        }
        mine = [u for u in done["utxos"] if u.asset_id == art]
        assert sorted(type(u.output).__name__ for u in mine) == ["NftMintOutput"]  # group 0 left
        other = (
            "X-"
            + _x(node, "avm.getAllBalances", {"address": _addr(node, OTHER)})["result"]["balances"][
                0
            ]["asset"]
        )
        assert other == "X-AVAX"
        nft = service(
            f"{node.base}/ext/bc/X",
            "avm.getUTXOs",
            {"addresses": [_addr(node, OTHER)]},
        )["result"]["utxos"]
        assert len(nft) == 2  # the NFT and the AVAX sent
        # 4 txs: 3 vertices (the second a sibling of the first), the stop vertex, one block
        vertices = node.node.chains["X"].runtime.containers.vertices
        decoded = [decode_vertex(vertices.container(h)) for h in range(1, len(vertices) + 1)]
        assert [v.stop for v in decoded] == [False, False, False, True]
        assert decoded[0].parent_ids == decoded[1].parent_ids
        assert set(decoded[2].parent_ids) == {decoded[0].id, decoded[1].id}
        assert decoded[3].height == decoded[2].height + 1
        assert _x(node, "avm.getHeight")["result"] == {"height": "1"}
        balances = _x(node, "avm.getAllBalances", {"address": _addr(node, OTHER)})["result"]
    # a restart replays the journal to the same state
    with serve_devnet(x_dag_vertices=3, data_dir=tmp_path) as again:
        assert (
            _x(again, "avm.getAllBalances", {"address": _addr(again, OTHER)})["result"] == balances
        )
        assert _x(again, "avm.getHeight")["result"] == {"height": "1"}
        assert len(again.node.chains["X"].runtime.containers.txs) == 4


def _addr(node: RunningNode, address: ShortID) -> str:
    from snowfield.formats.bech32 import format_address

    return format_address("X", "local", address.raw)


@pytest.fixture(scope="module")
def devnet() -> Any:
    with serve_devnet() as node:
        yield node


def _issue(node: RunningNode, tx: Tx) -> dict[str, Any]:
    return _x(node, "avm.issueTx", {"tx": encode_hex(tx.encode())})


def test_refusals_carry_avalanchego_reasons(devnet: RunningNode) -> None:
    async def build() -> tuple[XWallet, XWallet, BaseTxFields]:
        wallet = await _wallet(devnet)
        stranger = XWallet(devnet.base, wallet.net, devnet.node.dev_keys[1].private_key)
        base = await wallet._base(1_000, wallet.net.tx_fee)
        await wallet.close()
        await stranger.close()
        return wallet, stranger, base

    wallet, stranger, base = asyncio.run(build())
    good = wallet.sign(BaseTx(base), len(base.inputs))
    wrong_network = dataclasses.replace(base, network_id=7)
    cases = {
        "tx has wrong network ID": wallet.sign(BaseTx(wrong_network), len(base.inputs)),
        "wrong number of credentials": Tx(BaseTx(base), ()),
        "invalid signature": Tx(BaseTx(base), (Credential((bytes(64) + b"\x00",)),)),
        "wrong signature": stranger.sign(BaseTx(base), len(base.inputs)),
        "insufficient funds": wallet.sign(
            BaseTx(dataclasses.replace(base, inputs=base.inputs[:0])), 0
        ),
    }
    for reason, tx in cases.items():
        error = _issue(devnet, tx)["error"]
        assert error["code"] == -32000
        assert error["message"].startswith("couldn't issue tx: "), error
        assert reason in error["message"], (reason, error)
    bad = _x(devnet, "avm.issueTx", {"tx": "0x0000"})["error"]["message"]
    assert bad.startswith("problem decoding transaction") or bad.startswith("couldn't parse tx")
    # the good one is accepted once; the same bytes again are a duplicate
    tx_id = _issue(devnet, good)["result"]["txID"]
    assert _x(devnet, "avm.getTxStatus", {"txID": tx_id})["result"] == {"status": "Accepted"}
    again = _issue(devnet, good)["error"]["message"]
    assert "already accepted" in again
    # spending what it spent: its inputs are gone
    other = dataclasses.replace(base, memo=b"again")
    spent = _issue(devnet, wallet.sign(BaseTx(other), len(base.inputs)))["error"]["message"]
    assert "not found" in spent
    got = decode_hex(_x(devnet, "avm.getTx", {"txID": tx_id})["result"]["tx"])
    assert Tx.decode(got).id == ID.from_string(tx_id)


def test_conflicts_and_property_assets(devnet: RunningNode) -> None:
    """Two mempool txs spending one UTXO: the second is refused; a propertyfx asset is minted
    and burned through operations whose credentials verify."""
    chain = devnet.node.chains["X"].runtime.chain

    async def build() -> tuple[XWallet, BaseTxFields, BaseTxFields]:
        wallet = await _wallet(devnet)
        first = await wallet._base(10, wallet.net.tx_fee)
        await wallet.close()
        return wallet, first, dataclasses.replace(first, memo=b"twin")

    wallet, first, twin = asyncio.run(build())
    now = devnet.node.chains["X"].runtime.now()
    chain.issue(wallet.sign(BaseTx(first), len(first.inputs)), now)
    with pytest.raises(Conflict, match="conflicts with tx"):
        chain.issue(wallet.sign(BaseTx(twin), len(twin.inputs)), now)
    devnet.node.chains["X"].runtime.build()

    owner = wallet.owner

    async def property_flow() -> list[str]:
        w = await _wallet(devnet)
        base = await w._base(0, w.net.create_asset_fee)
        create = CreateAssetTx(
            base, "Deed", "DEED", 0, (InitialState(2, (fxs.PropertyMintOutput(owner),)),)
        )
        asset = await w.issue(w.sign(create, len(base.inputs)))
        mint_right = next(u for u in await w.utxos() if u.asset_id == asset)
        mint = fxs.PropertyMintOperation(
            Input((0,)), fxs.PropertyMintOutput(owner), fxs.PropertyOwnedOutput(owner)
        )
        base = await w._base(0, w.net.tx_fee)
        op_tx = OperationTx(base, (Operation(asset, (mint_right.utxo_id,), mint),))
        minted = await w.issue(_with_property_credential(w, op_tx, len(base.inputs)))
        owned = next(
            u
            for u in await w.utxos()
            if u.asset_id == asset and isinstance(u.output, fxs.PropertyOwnedOutput)
        )
        base = await w._base(0, w.net.tx_fee)
        burn = OperationTx(
            base, (Operation(asset, (owned.utxo_id,), fxs.PropertyBurnOperation(Input((0,)))),)
        )
        burned = await w.issue(_with_property_credential(w, burn, len(base.inputs)))
        kinds = sorted(type(u.output).__name__ for u in await w.utxos() if u.asset_id == asset)
        await w.close()
        return [str(minted), str(burned), *kinds]

    minted, burned, *kinds = asyncio.run(property_flow())
    assert chain.is_accepted(ID.from_string(minted)) and chain.is_accepted(ID.from_string(burned))
    assert kinds == ["PropertyMintOutput"]  # the owned property is burned, the right remains


def _with_property_credential(wallet: XWallet, unsigned: OperationTx, inputs: int) -> Tx:
    signed = wallet.sign(unsigned, inputs)
    (signature,) = signed.credentials[0].signatures  # type: ignore[attr-defined]
    return Tx(unsigned, (*signed.credentials, fxs.PropertyCredential((signature,))))
