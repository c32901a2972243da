"""`snowfield up` (what `make up` runs): devnet with demo traffic, indexer and data API come
up together, real data flows through to the API, and Ctrl-C stops every child."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from snowfield.config import NetworkSettings
from snowfield.crypto.keys import derive_keys
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address
from snowfield.formats.ids import ShortID
from snowfield.testing import free_port


def _atomic_exports(port: int) -> int:
    """UTXOs the atomic demo's account (the last dev key) exported from C to P."""
    secret = derive_keys(NetworkSettings().mnemonic, NetworkSettings().accounts)[-1].private_key
    owner = ShortID.from_public_key(public_key_of(secret))
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "platform.getUTXOs",
        "params": {"addresses": [format_address("P", "local", owner.raw)], "sourceChain": "C"},
    }
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        reply = httpx.post(f"http://127.0.0.1:{port}/ext/bc/P", json=body, timeout=5).json()
        if int(reply["result"]["numFetched"]):
            return int(reply["result"]["numFetched"])
        time.sleep(0.5)
    return 0


def test_up_serves_indexed_demo_data_and_stops_cleanly(tmp_path: Path) -> None:
    node, api, metrics = free_port(), free_port(), free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "snowfield",
            "up",
            "--data-dir",
            str(tmp_path),
            "--node-port",
            str(node),
            "--api-port",
            str(api),
            "--metrics-api-port",
            str(metrics),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        transactions: list[object] = []
        while time.monotonic() < deadline and not transactions:
            time.sleep(0.5)
            assert proc.poll() is None
            try:
                reply = httpx.get(
                    f"http://127.0.0.1:{api}/v1/chains/43112/addresses/"
                    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266/transactions",
                    timeout=5,
                )
            except httpx.HTTPError:
                continue
            if reply.status_code == 200:
                transactions = reply.json()["transactions"]
        assert transactions, "the demo's transactions reached the data API"
        chains = httpx.get(f"http://127.0.0.1:{api}/v1/chains", timeout=5).json()["chains"]
        assert chains[0]["chainId"] == "43112"
        assert chains[0]["rpcUrl"].endswith(f"{node}/ext/bc/C/rpc")
        series = httpx.get(
            f"http://127.0.0.1:{metrics}/v2/chains/43112/metrics/txCount?timeInterval=hour",
            timeout=5,
        ).json()["results"]
        assert sum(point["value"] for point in series) > 0, series
        page = httpx.get(f"http://127.0.0.1:{api}/", timeout=5)
        assert page.status_code == 200 and "snowfield explorer" in page.text
        config = httpx.get(f"http://127.0.0.1:{api}/explorer/config.json", timeout=5).json()
        assert config["rpc"].endswith(f"{node}/ext/bc/C/rpc")
        assert config["metricsApi"] == f"http://127.0.0.1:{metrics}"
        assert _atomic_exports(node) > 0  # the C-Chain atomic demo's C→P exports
    finally:
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=60)[0].decode(errors="replace")
    assert proc.returncode == 0, out
    assert "snowfield is up" in out and "Data API" in out
    assert f"http://127.0.0.1:{api}/" in out  # the explorer's URL
    for port in (node, api, metrics):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            raise AssertionError(f"port {port} still answers after Ctrl-C")
        except httpx.HTTPError:
            pass
