"""`snowfield up` (what `make up` runs): devnet with demo traffic, indexer and data API come
up together, real data flows through to the API, and Ctrl-C stops every child."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from eth_utils import keccak

from snowfield.config import NetworkSettings
from snowfield.crypto.keys import derive_keys
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address
from snowfield.formats.ids import ShortID
from snowfield.testing import free_port
from snowfield.workload.platform_demo import REWARDS_SECRET


def address_of(secret: bytes) -> ShortID:
    return ShortID.from_public_key(public_key_of(secret))


def _primary_network(api: int, deadline: float) -> dict[str, list[dict[str, object]]]:
    """Operations 11-13 once the primary-network indexer has the demo's subnet chain."""
    base = f"http://127.0.0.1:{api}/v1/networks/fuji"
    found: dict[str, list[dict[str, object]]] = {"staking": [], "pending": [], "subnets": []}
    while time.monotonic() < deadline:
        subnets = httpx.get(f"{base}/subnets", timeout=5)
        if subnets.status_code == 200 and any(s["blockchains"] for s in subnets.json()["subnets"]):
            found["subnets"] = subnets.json()["subnets"]
            break
        time.sleep(0.5)
    staking = httpx.get(f"{base}/blockchains/p-chain/transactions:listStaking", timeout=5).json()
    found["staking"] = staking["transactions"]
    node_ids = ",".join(sorted({str(t["nodeId"]) for t in found["staking"]}))
    if node_ids:
        pending = httpx.get(f"{base}/rewards:listPending", params={"nodeIds": node_ids}, timeout=5)
        found["pending"] = pending.json()["pendingRewards"]
    return found


CUSTOM_EVM = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"
DEV = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
MINTER = "0x0200000000000000000000000000000000000001"


def _rpc(url: str, method: str, *params: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    return httpx.post(url, json=body, timeout=10).json()["result"]


def _indexed_transactions(api: int, chain: str, address: str = DEV) -> list[object]:
    """The address's indexed transactions on `chain`, once some are there (bounded wait)."""
    url = f"http://127.0.0.1:{api}/v1/chains/{chain}/addresses/{address}/transactions"
    deadline = time.monotonic() + 60
    while True:
        reply = httpx.get(url, timeout=5)
        found: list[object] = reply.json().get("transactions", []) if reply.is_success else []
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


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


def _icm_executed(rpc: str, deadline: float) -> bool:
    """MessageExecuted on the demo L1: an ICM message from the C-Chain was relayed and run."""
    topic = "0x" + keccak(b"MessageExecuted(bytes32,bytes32)").hex()
    while time.monotonic() < deadline:
        logs = _rpc(rpc, "eth_getLogs", {"fromBlock": "0x0", "topics": [topic]})
        if logs:
            return True
        time.sleep(0.5)
    return False


def _manager_registered(rpc: str, deadline: float) -> bool:
    """The demo L1's validator manager completed a registration (ACP-99's flow, end to end)."""
    topic = "0x" + keccak(b"CompletedValidatorRegistration(bytes32,uint64)").hex()
    while time.monotonic() < deadline:
        if _rpc(rpc, "eth_getLogs", {"fromBlock": "0x0", "topics": [topic]}):
            return True
        time.sleep(0.5)
    return False


def _icm_delivered(api: int, deadline: float) -> dict[str, Any] | None:
    """Operation 16 for the ICM demo's account: a message from C to the L1, delivered."""
    settings = NetworkSettings()
    sender = derive_keys(settings.mnemonic, settings.accounts)[5].checksum_address.lower()
    while time.monotonic() < deadline:
        reply = httpx.get(f"http://127.0.0.1:{api}/v1/icm/addresses/{sender}/messages", timeout=5)
        assert reply.status_code == 200, reply.text
        for message in reply.json()["messages"]:
            if message["status"] == "delivered" and message["messageExecuted"]:
                return dict(message)
        time.sleep(0.5)
    return None


def _aggregates(node: int, api: int, subnets: list[dict[str, object]]) -> None:
    """What a new user probes: the demo's Warp messages and its L1 conversion aggregate."""
    topic = "0x" + keccak(b"SendWarpMessage(address,bytes32,bytes)").hex()
    logs = httpx.post(
        f"http://127.0.0.1:{node}/ext/bc/C/rpc",
        json={"jsonrpc": "2.0", "id": 1, "method": "eth_getLogs",
              "params": [{"fromBlock": "0x0", "topics": [topic]}]},
        timeout=10,
    ).json()["result"]  # fmt: skip
    assert logs, "the demo sends Warp messages"
    path = f"http://127.0.0.1:{api}/v1/signatureAggregator/fuji/aggregateSignatures"
    signed = httpx.post(path, json={"message": logs[-1]["data"]}, timeout=60)
    assert signed.status_code == 200, signed.text
    conversions = [s["l1ConversionTransactionHash"] for s in subnets if s.get("isL1")]
    assert conversions, "the demo L1's conversion is indexed"
    by_tx = httpx.get(f"{path}/{conversions[0]}", timeout=60)
    assert by_tx.status_code == 200, by_tx.text


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
        # the P-Chain demo ran first: it staked, created an L1 and moved time to the rewards
        rewards_to = format_address("P", "local", address_of(REWARDS_SECRET).raw)
        body = {"jsonrpc": "2.0", "id": 1, "method": "platform.getBalance"}
        body["params"] = {"addresses": [rewards_to]}
        balance = httpx.post(f"http://127.0.0.1:{node}/ext/bc/P", json=body, timeout=5).json()
        assert int(balance["result"]["balance"]) > 0, balance
        subnets = httpx.post(
            f"http://127.0.0.1:{node}/ext/bc/P",
            json={"jsonrpc": "2.0", "id": 1, "method": "platform.getBlockchains", "params": {}},
            timeout=5,
        ).json()["result"]["blockchains"]
        assert "demochain" in [c["name"] for c in subnets]
        chains = httpx.get(f"http://127.0.0.1:{api}/v1/chains", timeout=5).json()["chains"]
        assert chains[0]["chainId"] == "43112"
        assert chains[0]["rpcUrl"].endswith(f"{node}/ext/bc/C/rpc")
        # The demo L1: its own chain in operation 3, with its own demo traffic indexed.
        (l1,) = [c for c in chains if c["chainName"] == "snowfield demo L1"]
        assert l1["chainId"] == "99999" and l1["vmId"] == CUSTOM_EVM
        assert l1["rpcUrl"].endswith(f"{node}/ext/bc/{l1['platformChainId']}/rpc")
        for chain in ("43112", "99999", l1["platformChainId"]):
            assert _indexed_transactions(api, chain), chain
        # The demo calls the L1's precompiles: the native minter's mints are indexed.
        assert _indexed_transactions(api, "99999", MINTER), "mintNativeCoin calls"
        l1_rpc = f"http://127.0.0.1:{node}/ext/bc/{l1['platformChainId']}/rpc"
        assert set(_rpc(l1_rpc, "eth_getActiveRulesAt")["precompiles"]) == {
            "contractDeployerAllowListConfig",
            "contractNativeMinterConfig",
            "feeManagerConfig",
            "rewardManagerConfig",
            "txAllowListConfig",
            "warpConfig",
        }
        changed = 0
        for _ in range(100):  # the fee manager's call follows the mint in the round
            changed = _rpc(l1_rpc, "eth_feeConfig")["lastChangedAt"]
            if changed:
                break
            time.sleep(0.2)
        assert changed > 0, "setFeeConfig calls"
        for chain in ("43112", "99999", "total"):
            series = httpx.get(
                f"http://127.0.0.1:{metrics}/v2/chains/{chain}/metrics/txCount?timeInterval=hour",
                timeout=5,
            ).json()["results"]
            assert sum(point["value"] for point in series) > 0, (chain, series)
        primary = _primary_network(api, deadline)
        assert primary["staking"], "operation 11 lists the demo's stakers"
        assert primary["pending"], "operation 12 lists their pending rewards"
        assert "demochain" in [
            c["blockchainName"] for s in primary["subnets"] for c in s["blockchains"]
        ]
        page = httpx.get(f"http://127.0.0.1:{api}/", timeout=5)
        assert page.status_code == 200 and "snowfield explorer" in page.text
        config = httpx.get(f"http://127.0.0.1:{api}/explorer/config.json", timeout=5).json()
        assert config["rpc"].endswith(f"{node}/ext/bc/C/rpc")
        assert config["metricsApi"] == f"http://127.0.0.1:{metrics}"
        assert _atomic_exports(node) > 0  # the C-Chain atomic demo's C→P exports
        _aggregates(node, api, primary["subnets"])
        # the ICM demo starts after the P-Chain demo: its own bounded wait
        icm_deadline = time.monotonic() + 90
        assert _icm_executed(l1_rpc, icm_deadline), "the relayer delivers the demo's ICM messages"
        delivered = _icm_delivered(api, icm_deadline + 30)
        assert delivered is not None, "operation 16 shows the demo's delivered messages"
        teleporter = httpx.get(
            f"http://127.0.0.1:{api}/v1/chains", params={"feature": "teleporter"}, timeout=5
        ).json()["chains"]
        assert {c["chainId"] for c in teleporter} >= {"43112", "99999"}
        # up starts the webhook worker: the indexed chains offer webhooks.
        hooks = httpx.get(
            f"http://127.0.0.1:{api}/v1/chains", params={"feature": "webhooks"}, timeout=5
        ).json()["chains"]
        assert {c["chainId"] for c in hooks} >= {"43112", "99999"}
        assert _manager_registered(l1_rpc, time.monotonic() + 60), "the manager demo ran"
    finally:
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=60)[0].decode(errors="replace")
    assert proc.returncode == 0, out
    assert "snowfield is up" in out and "Data API" in out
    # Every demo ran: none stopped on an error (a chain it cannot drive is skipped quietly).
    stopped = [line for line in out.splitlines() if " stopped: " in line]
    assert not stopped, stopped
    assert f"http://127.0.0.1:{api}/" in out  # the explorer's URL
    for port in (node, api, metrics):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            raise AssertionError(f"port {port} still answers after Ctrl-C")
        except httpx.HTTPError:
            pass
