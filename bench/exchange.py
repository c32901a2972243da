"""X-Chain issue throughput: avm.issueTx of signed BaseTxs over HTTP, each accepted (in the
next block) before its status is read, against the floor measured in the same run: decoding
the same tx bytes and recovering their signers, in process, nothing else.

The txs are built and signed beforehand: each dev key sends a chain of BaseTxs, each spending
the previous one's change; --clients keys issue at once over their own connections. The devnet
runs as a child process (`snowfield devnet`) on loopback; counts and time are bounded.

Beside it, the ceiling of the same HTTP path (avm.getTxFee, a constant) at the same concurrency:
the floor runs well above what any one-request-per-tx API can reach on this stack.

    python bench/exchange.py [--txs 1600] [--clients 8]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import http.client
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import orjson

from snowfield.crypto.keys import DEFAULT_MNEMONIC, derive_keys
from snowfield.crypto.secp256k1 import recover_public_key
from snowfield.formats.exchange.txs import UTXO, BaseTx, Tx
from snowfield.formats.hexcheck import encode_hex
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferInput, TransferOutput
from snowfield.testing import DevnetProcess, free_port
from snowfield.workload.xwallet import XWallet, x_network

TARGET = 0.25
AMOUNT = 1_000
TIME_LIMIT = 120.0


async def _chains(base: str, secrets: list[bytes], per_key: int) -> list[list[bytes]]:
    """Per key, `per_key` signed BaseTxs, each spending the previous one's change."""
    net = await x_network(base)
    chains = []
    for secret in secrets:
        wallet = XWallet(base, net, secret)
        utxo = next(u for u in await wallet.utxos() if u.asset_id == net.avax)
        await wallet.close()
        txs = []
        for _ in range(per_key):
            assert isinstance(utxo.output, TransferOutput)
            have = utxo.output.amt
            sink = TransferableOutput(
                net.avax, TransferOutput(AMOUNT, OutputOwners(0, 1, (ShortID(bytes(20)),)))
            )
            change = TransferableOutput(
                net.avax, TransferOutput(have - AMOUNT - net.tx_fee, wallet.owner)
            )
            outs = tuple(sorted((sink, change), key=lambda o: o.sort_key()))
            inp = TransferableInput(utxo.utxo_id, net.avax, TransferInput(have, (0,)))
            base_fields = BaseTxFields(net.network_id, net.x_chain, outs, (inp,))
            tx = wallet.sign(BaseTx(base_fields), 1)
            txs.append(tx.encode())
            index = outs.index(change)
            utxo = UTXO(type(utxo.utxo_id)(tx.id, index), net.avax, change.output)
        chains.append(txs)
    return chains


def _floor(txs: list[bytes]) -> float:
    """Seconds to decode every tx and recover its signer, in process."""
    start = time.perf_counter()
    for data in txs:
        tx = Tx.decode(data)
        digest = hashlib.sha256(tx.unsigned_bytes()).digest()
        for credential in tx.credentials:
            for signature in getattr(credential, "signatures", ()):
                recover_public_key(digest, signature)
    return time.perf_counter() - start


class _Client:
    """One keep-alive connection (http.client: less client CPU than httpx on a shared box)."""

    def __init__(self, base: str) -> None:
        parts = urllib.parse.urlsplit(base)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)

    def call(self, method: str, params: object) -> dict[str, object]:
        body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        self.conn.request("POST", "/ext/bc/X", body, {"content-type": "application/json"})
        reply: dict[str, object] = orjson.loads(self.conn.getresponse().read())
        return reply

    def close(self) -> None:
        self.conn.close()


def _issue_chain(base: str, txs: list[bytes], errors: list[str]) -> None:
    client = _Client(base)
    try:
        for data in txs:
            reply = client.call("avm.issueTx", {"tx": encode_hex(data)})
            if "error" in reply:
                errors.append(str(reply["error"]))
                return
    finally:
        client.close()


def _hello(base: str, count: int, clients: int) -> float:
    """The ceiling of the same HTTP path: avm.getTxFee, a constant, at the same concurrency."""

    def run() -> None:
        client = _Client(base)
        for _ in range(count // clients):
            client.call("avm.getTxFee", {})
        client.close()

    threads = [threading.Thread(target=run) for _ in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIME_LIMIT)
    return count / (time.perf_counter() - start)


def _measure(base: str, chains: list[list[bytes]]) -> float:
    errors: list[str] = []
    threads = [threading.Thread(target=_issue_chain, args=(base, c, errors)) for c in chains]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIME_LIMIT)
    if errors:
        raise SystemExit(f"issueTx failed: {errors[0]}")
    _wait_accepted(base, [Tx.decode(c[-1]).id for c in chains if c])
    return time.perf_counter() - start


def _wait_accepted(base: str, tx_ids: list[object]) -> None:
    deadline = time.monotonic() + TIME_LIMIT
    client = _Client(base)
    for tx_id in tx_ids:
        while time.monotonic() < deadline:
            reply = client.call("avm.getTxStatus", {"txID": str(tx_id)})
            if reply["result"] == {"status": "Accepted"}:
                break
            time.sleep(0.01)
    client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--txs", type=int, default=1600)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        devnet = DevnetProcess(Path(tmp) / "devnet", free_port(), ("--accounts", "10"))
        devnet.start()
        try:
            keys = derive_keys(DEFAULT_MNEMONIC, args.clients)
            secrets = [k.private_key for k in keys]
            per_key = max(args.txs // args.clients, 1)
            chains = asyncio.run(_chains(devnet.base, secrets, per_key))
            flat = [tx for chain in chains for tx in chain]
            floor = _floor(flat)
            hello = _hello(devnet.base, len(flat), args.clients)
            elapsed = _measure(devnet.base, chains)
            accepted = len(flat)
        finally:
            devnet.stop()
    issue_rate, floor_rate = accepted / elapsed, accepted / floor
    ratio = issue_rate / floor_rate
    print(f"X-Chain issueTx: {accepted} BaseTxs over {args.clients} clients in {elapsed:.2f}s")
    print(
        f"  issue {issue_rate:,.0f} tx/s; floor (decode + recover signers) {floor_rate:,.0f} tx/s"
    )
    print(f"  ratio {ratio:.0%} of the floor (target >= {TARGET:.0%})")
    print(
        f"  the HTTP ceiling (avm.getTxFee, same clients) {hello:,.0f} req/s: issueTx runs at "
        f"{issue_rate / hello:.0%} of it; the floor is {floor_rate / hello:.1f}x that ceiling"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
