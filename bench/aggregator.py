"""Signature aggregation end to end: operation 1 of the data API (POST aggregateSignatures) over
a devnet of 100 validators on loopback, each asked over the peer-to-peer protocol (TLS, ACP-118);
p50 and p99 over fresh Warp messages, against the floor measured in the same run: verifying the
100 validators' signatures over one message one by one, in process.

Target: p50 <= 50 ms and <= 0.5x that floor. Loopback only; counts and time bounded.

    python bench/aggregator.py [--validators 100] [--messages 30]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from eth_account import Account
from eth_utils import keccak

from snowfield.aggregator.service import AggregatorService
from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.crypto import bls
from snowfield.testing import DevnetProcess, free_port, open_database, serve_asgi

WARP = "0x0200000000000000000000000000000000000005"
KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
TIME_LIMIT = 300.0


def _send(rpc: httpx.Client, nonce: int, payload: bytes) -> str:
    """Sends sendWarpMessage(payload) on the C-Chain; the SendWarpMessage log's data."""
    call = keccak(b"sendWarpMessage(bytes)")[:4] + (32).to_bytes(32, "big")
    call += len(payload).to_bytes(32, "big") + payload.ljust(32, b"\x00")
    tx = Account.sign_transaction(
        {
            "to": WARP,
            "data": call,
            "gas": 300_000,
            "gasPrice": 30 * 10**9,
            "nonce": nonce,
            "chainId": 43112,
        },
        KEY,
    )
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_sendRawTransaction",
            "params": ["0x" + tx.raw_transaction.hex()]}  # fmt: skip
    tx_hash = rpc.post("/ext/bc/C/rpc", json=body).json()["result"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_getTransactionReceipt", "params": [tx_hash]}
    receipt = rpc.post("/ext/bc/C/rpc", json=body).json()["result"]
    return str(receipt["logs"][0]["data"])


def _floor(message: bytes, count: int) -> float:
    """Seconds to verify `count` validators' signatures over `message`, one by one."""
    signers = [bls.SecretKey.generate() for _ in range(count)]
    pairs = [(s.public_key(), s.sign(message)) for s in signers]
    start = time.perf_counter()
    for key, signature in pairs:
        if not bls.verify(key, signature, message):
            raise SystemExit("a signature did not verify")
    return time.perf_counter() - start


@contextlib.contextmanager
def _devnet(folder: Path, validators: int) -> Iterator[str]:
    """`snowfield devnet` as its own process (as a node is), its validators on free ports."""
    node = DevnetProcess(
        folder / "devnet",
        free_port(),
        ("--validators", str(validators), "--staking-port", "0"),
    )
    node.start(timeout=120)
    try:
        yield node.base
    finally:
        node.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validators", type=int, default=100)
    parser.add_argument("--messages", type=int, default=30)
    args = parser.parse_args()
    deadline = time.monotonic() + TIME_LIMIT
    with (
        tempfile.TemporaryDirectory() as tmp,
        _devnet(Path(tmp), args.validators) as node_base,
        open_database(f"sqlite:///{Path(tmp) / 'api.db'}") as db,
    ):
        service = AggregatorService(node_base)
        app = create_data_app(db, policy=RatePolicy(10**9, 10**9), signatures=service)
        with (
            serve_asgi(app, name="data-api") as api_base,
            httpx.Client(base_url=node_base, timeout=60) as rpc,
            httpx.Client(base_url=api_base, timeout=60) as api,
        ):
            path = "/v1/signatureAggregator/fuji/aggregateSignatures"
            latencies = []
            for i in range(args.messages + 1):  # the first warms the connections
                if time.monotonic() > deadline:
                    break
                data = _send(rpc, i, f"bench {i}".encode())
                started = time.perf_counter()
                reply = api.post(path, json={"message": data})
                elapsed = time.perf_counter() - started
                if reply.status_code != 200:
                    raise SystemExit(f"aggregation failed: {reply.text}")
                if i:
                    latencies.append(elapsed)
            sample = bytes.fromhex(data[2:])[64:]
            floor = _floor(sample, args.validators)
    latencies.sort()
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"operation 1 over {args.validators} validators, {len(latencies)} messages")
    print(f"  p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms (target p50 <= 50 ms)")
    print(f"  floor: verifying {args.validators} signatures one by one {floor * 1000:.1f} ms")
    print(f"  p50 / floor = {p50 / floor:.2f} (target <= 0.5)")
    sys.exit(0)


if __name__ == "__main__":
    main()
