"""`snowfield relayer` killed with SIGKILL while it delivers, twice, and restarted on its state
file: every message is delivered exactly once (one ReceiveCrossChainMessage each, and no
delivery transaction wasted on a message already received)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

from snowfield.formats.ids import ID
from snowfield.rpc.client import RpcClient
from snowfield.testing import serve_devnet
from snowfield.workload.contracts import load
from snowfield.workload.icm import (
    MESSENGER_ADDRESS,
    TOPICS,
    EvmAccount,
    deploy_messenger,
    send_message_data,
)

MESSAGES = 24  # each way: C → L1 and L1 → C


def _pending(state: Path) -> int | None:
    """Messages the relayer has read but not delivered yet (None before it read any)."""
    try:
        saved = json.loads(state.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or "pending" not in saved or not saved["cursor"]:
        return None
    return len(saved["pending"])


def _start(base: str, key: bytes, state: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:  # the child holds its own descriptor
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "snowfield",
                "relayer",
                "--node-url",
                base,
                "--key",
                "0x" + key.hex(),
                "--state-file",
                str(state),
                "--interval",
                "0.05",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _kill_when(proc: subprocess.Popen[bytes], state: Path, delivered: int, total: int) -> None:
    """SIGKILL once `delivered` messages of `total` left the pending list."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        pending = _pending(state)
        if pending is not None and total - pending >= delivered and pending > 0:
            proc.kill()
            proc.wait(timeout=10)
            return
        assert proc.poll() is None, "the relayer exited on its own"
        time.sleep(0.002)
    raise AssertionError("the relayer did not reach the kill point")


def test_kill9_mid_delivery_then_restart_delivers_each_message_once(tmp_path: Path) -> None:
    with serve_devnet(l1=("icm",)) as node:
        (chain,) = [c for c in node.node.platform.chain.blockchains() if c.name == "icm"]
        l1 = str(chain.blockchain_id)
        c_id = str(node.node.ids.c_chain)
        urls = {c_id: node.rpc, l1: f"{node.base}/ext/bc/{l1}/rpc"}
        sender = node.node.dev_keys[1].private_key
        relayer_key = node.node.dev_keys[2].private_key

        async def send_all() -> dict[str, list[str]]:
            clients = {k: RpcClient(u) for k, u in urls.items()}
            accounts = {k: EvmAccount(c, sender) for k, c in clients.items()}
            sent: dict[str, list[str]] = {c_id: [], l1: []}  # by destination
            echoes = {}
            for chain_id, client in clients.items():
                await deploy_messenger(client, accounts[chain_id])
                echo = load("IcmEcho").deploy_data(MESSENGER_ADDRESS)
                echoes[chain_id] = (await accounts[chain_id].send(None, echo, gas=2_000_000))[
                    "contractAddress"
                ]
            topic = "0x" + TOPICS["SendCrossChainMessage"].hex()
            for n in range(MESSAGES):
                for source, destination in ((c_id, l1), (l1, c_id)):
                    data = send_message_data(
                        ID.from_string(destination).raw, echoes[destination], f"m{n}".encode()
                    )
                    receipt = await accounts[source].send(MESSENGER_ADDRESS, data)
                    (log,) = [x for x in receipt["logs"] if x["topics"][0] == topic]
                    sent[destination].append(log["topics"][1])
            for client in clients.values():
                await client.aclose()
            return sent

        sent = asyncio.run(send_all())
        total = 2 * MESSAGES
        state, log = tmp_path / "relayer.json", tmp_path / "relayer.log"
        for kill_at in (5, 20):
            proc = _start(node.base, relayer_key, state, log)
            try:
                _kill_when(proc, state, kill_at, total)
            finally:
                if proc.poll() is None:
                    proc.kill()
        proc = _start(node.base, relayer_key, state, log)
        try:
            deadline = time.monotonic() + 120
            while _pending(state) != 0 and time.monotonic() < deadline:
                assert proc.poll() is None, log.read_text()
                time.sleep(0.05)
            assert _pending(state) == 0, log.read_text()
        finally:
            proc.kill()
            proc.wait(timeout=10)

        async def check() -> None:
            relayer = EvmAccount(RpcClient(node.rpc), relayer_key).address
            topic = "0x" + TOPICS["ReceiveCrossChainMessage"].hex()
            for destination, ids in sent.items():
                async with RpcClient(urls[destination]) as rpc:
                    logs = await rpc.call(
                        "eth_getLogs",
                        {"fromBlock": "0x0", "address": MESSENGER_ADDRESS, "topics": [topic]},
                    )
                    received = [x["topics"][1] for x in logs]
                    assert sorted(received) == sorted(ids)  # each once, none missing
                    nonce = int(await rpc.call("eth_getTransactionCount", relayer, "latest"), 16)
                    assert nonce == len(ids), "a delivery transaction was wasted"

        asyncio.run(check())
