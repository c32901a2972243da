"""Real processes: demo traffic on a real devnet, indexed by `snowfield index`, delivered by
`snowfield webhooks` to a receiver on 127.0.0.1; every delivery passes chainkit's
validateWebhook and agrees with the node; a kill -9 of the worker mid-delivery and of the
indexer mid-stream loses nothing and sends nothing under a new messageId."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from web3 import Web3

from snowfield.store import webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.rows import ChainRow
from snowfield.store.webhooks import WebhookRow
from snowfield.store.writes import upsert_chain
from snowfield.supervisor import terminate
from snowfield.testing import DEV_KEYS, RunningNode, run_demo_rounds, serve_devnet
from snowfield.testing.ports import free_port
from tests.webhooks.receiver import Receiver, receiver, validate

CHAIN = 43112


def _spawn(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "snowfield", *args], stdout=subprocess.DEVNULL, stderr=out
        )


def _worker(db: Path, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    return _spawn(
        ["webhooks", "--db", str(db), "--allow", "127.0.0.0/8", "--lease", "1", "--poll", "0.05",
         *extra],
        log,
    )  # fmt: skip


def _indexer(db: Path, rpc: str, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    return _spawn(["index", "--rpc", rpc, "--db", str(db), "--no-follow", *extra], log)


def _until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _kill9(proc: subprocess.Popen[bytes]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def _follow(db: Database, url: str, address: str, owner: str) -> WebhookRow:
    draft = WebhookRow(
        "", owner, "address_activity", url, "demo", "", str(CHAIN), CHAIN, None, "active", 0,
        True, True,
    )  # fmt: skip
    webhooks.ensure_secret(db, owner)
    return webhooks.create_webhook(db, draft, [address])


def _outbox(db: Database) -> set[str]:
    return {str(r[0]) for r in db.query("SELECT message_id FROM webhook_outbox")}


def _delivered(db: Database) -> set[str]:
    rows = db.query("SELECT message_id FROM webhook_outbox WHERE state = 'delivered'")
    return {str(r[0]) for r in rows}


@pytest.fixture(scope="module")
def node() -> Iterator[RunningNode]:
    with serve_devnet() as running:
        run_demo_rounds(running.rpc, 2)
        yield running


def _sender() -> str:
    from eth_account import Account

    return str(Account.from_key(DEV_KEYS[0]).address).lower()


def test_demo_traffic_is_delivered_signed_and_true_through_kill9s(
    node: RunningNode, tmp_path: Path
) -> None:
    path = tmp_path / "snowfield.db"
    db = Database(str(path))
    db.migrate()
    upsert_chain(db, ChainRow(chain_id=CHAIN, name="C-Chain", network="local", rpc_url=node.rpc))
    key, _ = create_key(db, "demo")
    sender = _sender()
    rx: Receiver
    with receiver() as rx:
        hook = _follow(db, rx.url, sender, key.id)
        # The first delivery hangs: the worker is killed with it in flight.
        rx.answer = lambda n: (200, 30.0) if n == 0 else (200, 0.0)
        indexer = _indexer(path, node.rpc, tmp_path / "index.log", "--batch-blocks", "1")
        worker = _worker(path, tmp_path / "worker.log")
        try:
            _until(lambda: len(rx.received) >= 1, 60, "a first delivery in flight")
            _kill9(worker)
            _kill9(indexer)  # mid-stream: batches of one block, some written, some not
            in_flight = {r.json()["messageId"] for r in rx.received}
            indexer = _indexer(path, node.rpc, tmp_path / "index.log")
            assert indexer.wait(timeout=120) == 0
            port = free_port()
            # Delivered attempts log at DEBUG (failures at INFO): asked for here.
            worker = _worker(
                path, tmp_path / "worker2.log", "--metrics-port", str(port), "--log-format",
                "json", "--log-level", "debug",
            )  # fmt: skip
            _until(lambda: _delivered(db) == _outbox(db), 60, "every message delivered")
            metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
        finally:
            for proc in (worker, indexer):
                terminate(proc)
        secret = webhooks.shared_secret(db, key.id)
        assert secret is not None
        verdicts = validate(secret, rx.received)
        assert all(v["ok"] for v in verdicts), verdicts
        received = {v["messageId"] for v in verdicts}
        # Nothing lost, nothing under a new id; only what was in flight at the kill came twice.
        assert received == _outbox(db)
        duplicates = len(rx.received) - len(received)
        assert 0 <= duplicates <= len(in_flight)
        bodies = {b["messageId"]: b for b in rx.bodies()}
    # The restarted worker's Prometheus metrics and structured logs tell of its deliveries.
    after_restart = len(rx.received) - len(in_flight)
    delivered = [
        float(line.split()[-1])
        for line in metrics.splitlines()
        if line.startswith('snowfield_webhook_attempts_total{outcome="delivered"}')
    ]
    assert delivered and delivered[0] >= after_restart - 1
    entries = [
        json.loads(line) for line in (tmp_path / "worker2.log").read_text().splitlines()
        if line.startswith("{")
    ]  # fmt: skip
    logged = {e["message_id"] for e in entries if e.get("outcome") == "delivered"}
    assert logged and logged <= received
    # Truth: every transaction the sender sent on the node was delivered, once per message,
    # with the node's fields.
    w3 = Web3(Web3.HTTPProvider(node.rpc, request_kwargs={"timeout": 30}))
    head = w3.eth.block_number
    sent = {}
    for n in range(head + 1):
        for tx in w3.eth.get_block(n, full_transactions=True)["transactions"]:
            if str(tx["from"]).lower() == sender:
                sent[tx["hash"].to_0x_hex()] = tx
    delivered = {b["event"]["transaction"]["txHash"]: b for b in bodies.values()}
    assert set(sent) <= set(delivered)
    assert {b["webhookId"] for b in bodies.values()} == {hook.id}
    for tx_hash, tx in sent.items():
        body = delivered[tx_hash]["event"]["transaction"]
        receipt = w3.eth.get_transaction_receipt(tx_hash)
        assert body["blockNumber"] == str(tx["blockNumber"])
        assert body["nonce"] == str(tx["nonce"]) and body["value"] == str(tx["value"])
        assert body["receiptGasUsed"] == str(receipt["gasUsed"])
        assert body["receiptCumulativeGasUsed"] == str(receipt["cumulativeGasUsed"])
        assert len(delivered[tx_hash]["event"]["logs"]) == len(receipt["logs"])
    db.close()
