"""The primary network's genesis as avalanchego's local network builds it: the AVAX asset id is
the X-Chain genesis CreateAssetTx's id, and the X- and C-Chain ids are the ids of the P-Chain
genesis's CreateChainTxs; posing as the test network, Fuji's well-known ids instead."""

from __future__ import annotations

import hashlib
from typing import Any

from snowfield.formats.exchange.txs import CreateAssetTx
from snowfield.formats.exchange.txs import Tx as XTx
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID
from snowfield.formats.platform.subnet_txs import CreateChainTx
from snowfield.formats.platform.txs import Tx as PTx
from snowfield.testing import RunningNode, serve_devnet
from tests.node.test_node_apis import service


def _result(node: RunningNode, path: str, method: str, params: dict[str, Any]) -> Any:
    reply = service(f"{node.base}{path}", method, params)
    assert "error" not in reply, reply
    return reply["result"]


def test_local_ids_come_from_the_genesis() -> None:
    with serve_devnet() as node:
        ids = node.node.ids
        # the AVAX asset: the X-Chain genesis CreateAssetTx, whose bytes hash to its id
        raw = decode_hex(_result(node, "/ext/bc/X", "avm.getTx", {"txID": ids.avax_asset})["tx"])
        assert ID(hashlib.sha256(raw).digest()) == ID.from_string(ids.avax_asset)
        asset = XTx.decode(raw).unsigned
        assert isinstance(asset, CreateAssetTx) and asset.symbol == "AVAX"
        # X and C: the P-Chain genesis's CreateChainTxs, by id
        for name, chain_id in (("X-Chain", ids.x_chain), ("C-Chain", ids.c_chain)):
            tx = PTx.decode(
                decode_hex(_result(node, "/ext/bc/P", "platform.getTx", {"txID": chain_id})["tx"])
            )
            assert str(tx.id) == chain_id
            assert isinstance(tx.unsigned, CreateChainTx) and tx.unsigned.chain_name == name
            named = _result(node, "/ext/info", "info.getBlockchainID", {"alias": name[0]})
            assert named == {"blockchainID": chain_id}
        listed = _result(node, "/ext/bc/P", "platform.getBlockchains", {})["blockchains"]
        assert {ids.x_chain, ids.c_chain} <= {c["id"] for c in listed}
        # the X-Chain's genesis carries the AVAX CreateAssetTx
        x_create = PTx.decode(
            decode_hex(_result(node, "/ext/bc/P", "platform.getTx", {"txID": ids.x_chain})["tx"])
        ).unsigned
        assert isinstance(x_create, CreateChainTx)
        # version, type id | the CreateAssetTx's fields | no credentials
        assert raw[6:-4] in x_create.genesis_data


def test_posing_as_fuji_takes_its_ids() -> None:
    with serve_devnet(network_id=5) as node:
        assert node.node.ids.x_chain == "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"
        assert node.node.ids.c_chain == "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"
        assert node.node.ids.avax_asset == "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK"
