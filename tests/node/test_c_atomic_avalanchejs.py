"""@avalabs/avalanchejs 5.2 moves AVAX P→C and C→P through the devnet: a P ExportTx, the C
ImportTx built from avax.getUTXOs and eth_baseFee, a C ExportTx with the account's nonce, and
the P ImportTx; balances move by exactly the amounts and fees the client computed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.chains.atomic import AtomicElement, AtomicRequests
from snowfield.chains.evm.atomic_fees import X2C_RATE, gas_used
from snowfield.crypto.hashing import keccak
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.atomic.extdata import decode_batch
from snowfield.formats.atomic.txs import AtomicTx, ExportTx, ImportTx
from snowfield.formats.hexcheck import decode_hex, encode_hex
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.components import UTXO, UTXOID
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput
from snowfield.formats.rlp import encode_bytes
from snowfield.testing import DevnetProcess, free_port, run_node_script, serve_devnet
from tests.node.test_node_apis import service

EWOQ_ETH = "0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc"
TO_C = 50_000_000_000  # 50 AVAX exported P→C (nAVAX)
TO_P = 20_000_000_000  # 20 AVAX exported C→P

# The flows, as avalanchejs users write them (run by `run_node_script`).
SCRIPT = (Path(__file__).parent / "c_atomic_flows.mjs").read_text()


def run_flows(base: str) -> dict[str, Any]:
    args = ("0x" + EWOQ_KEY.hex(), str(TO_C), str(TO_P))
    out = run_node_script(SCRIPT, base, *args, packages=("@avalabs/avalanchejs",))
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def moved(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[DevnetProcess, dict[str, Any]]]:
    """`snowfield devnet` as a process (so a test can kill -9 it), after the flows ran."""
    node = DevnetProcess(tmp_path_factory.mktemp("catomic") / "data", free_port())
    node.start()
    try:
        yield node, run_flows(node.base)
    finally:
        node.stop()


def test_p_to_c_import_credits_exactly_the_imported_amount(
    moved: tuple[DevnetProcess, dict[str, Any]],
) -> None:
    _, out = moved
    assert out["pExport"]["committed"] is True
    imp = out["cImport"]
    assert imp["utxos"] == 1 and imp["status"]["status"] == "Accepted"
    data = decode_hex(imp["hex"])
    tx = AtomicTx.decode(data)
    assert tx.encode() == data  # byte-exact both ways against avalanchejs
    assert str(tx.id) == imp["txID"]
    unsigned = tx.unsigned
    assert isinstance(unsigned, ImportTx)
    credited = sum(o.amount for o in unsigned.outs)
    assert int(imp["grew"]) == credited * X2C_RATE
    fee = TO_C - credited  # what the client burned: its gas * base fee
    assert fee == gas_used(tx) * int(imp["baseFee"]) // X2C_RATE > 0
    assert imp["fetched"] == imp["hex"]
    assert imp["height"] == imp["status"]["blockHeight"]


def test_the_block_carries_the_atomic_tx_in_its_extra_data(
    moved: tuple[DevnetProcess, dict[str, Any]],
) -> None:
    node, out = moved
    rpc = node.base + "/ext/bc/C/rpc"
    height = int(out["cImport"]["height"])
    block = _eth(rpc, "eth_getBlockByNumber", [hex(height), False])
    extra = bytes.fromhex(block["blockExtraData"][2:])
    assert [str(t.id) for t in decode_batch(extra)] == [out["cImport"]["txID"]]
    assert block["extDataHash"] == "0x" + keccak(encode_bytes(extra)).hex()
    assert int(block["extDataGasUsed"], 16) > 10_000


def test_c_to_p_export_debits_bumps_nonce_and_p_imports(
    moved: tuple[DevnetProcess, dict[str, Any]],
) -> None:
    _, out = moved
    exp = out["cExport"]
    assert exp["status"]["status"] == "Accepted"
    tx = AtomicTx.decode(decode_hex(exp["hex"]))
    unsigned = tx.unsigned
    assert isinstance(unsigned, ExportTx)
    (debit,) = unsigned.ins
    assert int(exp["shrank"]) == debit.amount * X2C_RATE
    assert debit.amount - TO_P == gas_used(tx) * int(exp["baseFee"]) // X2C_RATE > 0
    assert int(exp["nonceAfter"]) == int(exp["nonce"]) + 1
    assert "already known" in exp["again"]
    imp = out["pImport"]
    assert imp["utxos"] == 1 and imp["committed"] is True and imp["left"] == 0
    assert 0 < TO_P - int(imp["grew"]) < 1_000_000  # the P import's fee


def test_native_namespace_and_errors(moved: tuple[DevnetProcess, dict[str, Any]]) -> None:
    node, out = moved
    native = node.base + "/ext/bc/C/native"
    avax = node.base + "/ext/bc/C/avax"
    tx_id = out["cImport"]["txID"]
    status = _ok(native, "native.getAtomicTxStatus", {"txID": tx_id})
    assert status == {"status": "Accepted", "blockHeight": int(out["cImport"]["height"])}
    got = _ok(native, "native.getAtomicTx", {"txID": tx_id, "encoding": "hex"})
    assert got["tx"] == out["cImport"]["hex"] and got["blockHeight"] == status["blockHeight"]
    page = _ok(native, "native.getUTXOs", {"addresses": [_ewoq_c()], "sourceChain": "P"})
    assert page["numFetched"] == 0 and page["utxos"] == []
    unknown = str(ID(bytes(32)))
    assert _ok(avax, "avax.getAtomicTxStatus", {"txID": unknown}) == {"status": "Unknown"}
    for method, params, text in [
        ("avax.getAtomicTx", {"txID": unknown}, f"could not find tx {unknown}"),
        ("avax.getAtomicTxStatus", {"txID": ""}, "nil transaction ID"),
        ("avax.getUTXOs", {"addresses": [_ewoq_c()]}, "no source chain provided"),
        ("avax.getUTXOs", {"sourceChain": "P"}, "no addresses provided"),
        ("avax.issueTx", {"tx": "0x00"}, "problem decoding transaction"),
        ("avax.issueTx", {"tx": out["cImport"]["hex"]}, "already known"),
        (
            "avax.getUTXOs",
            {"addresses": [_ewoq_c()], "sourceChain": "P", "encoding": "json"},
            "unsupported encoding in method",
        ),
    ]:
        reply = service(avax, method, params)
        assert reply["error"]["code"] == -32000, reply
        assert text in reply["error"]["message"], reply


def test_kill_9_keeps_the_atomic_txs_and_shared_memory(
    moved: tuple[DevnetProcess, dict[str, Any]],
) -> None:
    node, out = moved
    rpc = node.base + "/ext/bc/C/rpc"
    balance = _eth(rpc, "eth_getBalance", [EWOQ_ETH, "latest"])
    node.kill9()
    node.start()
    avax = node.base + "/ext/bc/C/avax"
    for key in ("cImport", "cExport"):
        status = _ok(avax, "avax.getAtomicTxStatus", {"txID": out[key]["txID"]})
        assert status == {"status": "Accepted", "blockHeight": out[key]["status"]["blockHeight"]}
    assert _eth(rpc, "eth_getBalance", [EWOQ_ETH, "latest"]) == balance
    # The imported UTXO stays consumed, the exported one imported on P stays gone.
    page = _ok(avax, "avax.getUTXOs", {"addresses": [_ewoq_c()], "sourceChain": "P"})
    assert page["numFetched"] == "0"
    p = node.base + "/ext/bc/P"
    assert _ok(p, "platform.getTxStatus", {"txID": out["pImport"]["txID"]}) == {
        "status": "Committed"
    }
    left = _ok(p, "platform.getUTXOs", {"addresses": [_ewoq_p()], "sourceChain": "C"})
    assert left["numFetched"] == "0"


def _ewoq_p() -> str:
    return "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


def _ewoq_c() -> str:
    return "C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


def _ok(url: str, method: str, params: dict[str, Any]) -> Any:
    reply = service(url, method, params)
    assert "error" not in reply, reply
    return reply["result"]


def _eth(url: str, method: str, params: list[Any]) -> Any:
    reply = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    return reply.json()["result"]


SDK_SCRIPT = (Path(__file__).parent / "c_atomic_sdk_flows.mjs").read_text()


def test_avalanche_sdk_moves_p_to_c_and_back_posing_as_fuji() -> None:
    """@avalanche-sdk/client's cross-chain builders need network id 5 (they hard-code Fuji's
    and mainnet's chain ids): its prepare*Txn, sendXPTransaction and waitForTxn end to end."""
    with serve_devnet(network_id=5) as node:
        args = ("0x" + EWOQ_KEY.hex(), str(TO_C), str(TO_P))
        packages = ("@avalanche-sdk/client", "@avalabs/avalanchejs")
        out = json.loads(run_node_script(SDK_SCRIPT, node.base, *args, packages=packages))
        imported = AtomicTx.decode(decode_hex(out["cImportTx"]["tx"]))
        assert str(imported.id) == out["cImport"]
        assert isinstance(imported.unsigned, ImportTx)
        (credit,) = imported.unsigned.outs
        assert int(out["grew"]) == credit.amount * X2C_RATE
        assert TO_C - credit.amount > 0  # the fee, in AVAX, as the SDK computed it
        exported = AtomicTx.decode(decode_hex(out["cExportTx"]["tx"]))
        assert isinstance(exported.unsigned, ExportTx)
        (debit,) = exported.unsigned.ins
        assert int(out["shrank"]) == debit.amount * X2C_RATE and debit.amount > TO_P
        assert out["status"]["status"] == "Accepted"
        p = node.base + "/ext/bc/P"
        assert _ok(p, "platform.getTxStatus", {"txID": out["pImport"]})["status"] == "Committed"


def test_get_utxos_pages_through_end_index() -> None:
    """Five UTXOs P exported to C, fetched two at a time by following `endIndex`."""
    with serve_devnet() as running:
        node = running.node
        c_chain = ID.from_string(node.ids.c_chain)
        owner = ShortID.from_public_key(public_key_of(EWOQ_KEY))
        owners = OutputOwners(0, 1, (owner,))
        expected = set()
        for i in range(5):
            utxo = UTXO(
                UTXOID(ID(bytes([i + 1]) * 32), 0),
                ID.from_string(node.ids.avax_asset),
                TransferOutput(1_000 + i, owners),
            )
            element = AtomicElement(utxo.id.raw, utxo.encode(), (owner.raw,))
            node.shared_memory.apply(P_CHAIN_ID, {c_chain: AtomicRequests(put=(element,))})
            expected.add(encode_hex(utxo.encode()))
        avax = running.base + "/ext/bc/C/avax"
        params: dict[str, Any] = {
            "addresses": [_ewoq_c()],
            "sourceChain": str(P_CHAIN_ID),
            "limit": 2,
        }
        seen: list[str] = []
        for _ in range(4):
            page = _ok(avax, "avax.getUTXOs", params)
            seen += page["utxos"]
            if page["numFetched"] == "0":
                break
            assert page["endIndex"]["address"] == _ewoq_c()
            params["startIndex"] = page["endIndex"]
        assert len(seen) == 5 and set(seen) == expected
