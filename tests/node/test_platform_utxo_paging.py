"""platform.getUTXOs pages as the clients expect (the SDK follows endIndex while a page holds
1024): every UTXO once, in (address, id) order, across pages and a capacity refill."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx

from snowfield.chains.platform.chain import PlatformChain
from snowfield.formats.bech32 import format_address
from snowfield.formats.hexcheck import decode_hex, encode_hex
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.components import UTXO, TransferableOutput
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput
from snowfield.formats.platform.transfer_txs import BaseTx
from snowfield.testing import serve_devnet
from tests.chains.platform.wallet import Wallet

OWNER = ShortID(hashlib.sha256(b"many utxos").digest()[:20])
PER_TX = 550  # ~600,000 gas each: two txs need the capacity to refill in between


def _call(client: httpx.Client, url: str, method: str, params: dict[str, Any]) -> Any:
    reply = client.post(url, json={"jsonrpc": "2.0", "id": 0, "method": method, "params": params})
    body = reply.json()
    assert "error" not in body, body
    return body["result"]


def _fan_out(chain: PlatformChain, first: int) -> bytes:
    outs = [
        TransferableOutput(
            chain.state.avax_asset_id, TransferOutput(first + i, OutputOwners(0, 1, (OWNER,)))
        )
        for i in range(PER_TX)
    ]
    return Wallet(chain).build(BaseTx, sum(o.output.amount for o in outs), outs).encode()


def test_utxos_page_through_end_index() -> None:
    with serve_devnet(validators=1) as devnet, httpx.Client(timeout=30) as client:
        p, c = devnet.base + "/ext/bc/P", devnet.base + "/ext/bc/C/rpc"
        chain: PlatformChain = devnet.node.chains["P"].runtime.chain
        _call(client, p, "platform.issueTx", {"tx": encode_hex(_fan_out(chain, 1))})
        second = _fan_out(chain, 1_000_000)
        reply = client.post(
            p,
            json={"jsonrpc": "2.0", "id": 1, "method": "platform.getFeeState", "params": {}},
        ).json()["result"]
        if reply["capacity"] < 600_000:  # not yet refilled: move the network clock on
            client.post(
                c, json={"jsonrpc": "2.0", "id": 1, "method": "evm_increaseTime", "params": [10]}
            )
        _call(client, p, "platform.issueTx", {"tx": encode_hex(second)})
        address = format_address("P", "local", OWNER.raw)
        pages, start = [], None
        for _ in range(5):
            params: dict[str, Any] = {"addresses": [address], "encoding": "hex"}
            if start:
                params["startIndex"] = start
            page = _call(client, p, "platform.getUTXOs", params)
            pages.append(page)
            start = page["endIndex"]
            if int(page["numFetched"]) < 1024:
                break
        assert [int(page["numFetched"]) for page in pages] == [1024, 2 * PER_TX - 1024]
        utxos = [UTXO.decode(decode_hex(u)) for page in pages for u in page["utxos"]]
        ids = [u.id for u in utxos]
        assert len(set(ids)) == 2 * PER_TX and ids == sorted(ids)
        assert sorted(u.output.amount for u in utxos) == sorted(  # type: ignore[attr-defined]
            [1 + i for i in range(PER_TX)] + [1_000_000 + i for i in range(PER_TX)]
        )
        assert pages[0]["endIndex"]["address"] == address
        limited = _call(client, p, "platform.getUTXOs", {"addresses": [address], "limit": 7})
        assert limited["numFetched"] == "7"
        assert limited["utxos"] == pages[0]["utxos"][:7]
