"""Real processes for validator_activity: the devnet's P-Chain demo traffic indexed by
`snowfield index-primary`, killed with kill -9 mid-stream and started again, then delivered by
`snowfield webhooks`: every event arrives once under its one messageId, authenticated by
chainkit's validateWebhook."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from snowfield.formats.ids import NodeID
from snowfield.store import webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.webhooks import WebhookRow
from snowfield.supervisor import terminate
from snowfield.testing import open_database, serve_devnet
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from tests.webhooks.receiver import receiver, validate

P = "11111111111111111111111111111111LpoYY"
STAKER = str(NodeID(hashlib.sha256(b"demo validator").digest()[:20]))
SUBS = ["validator_stake", "delegator_stake", "reward_distribution"]


def _spawn(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "snowfield", *args], stdout=subprocess.DEVNULL, stderr=out
        )


def _until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def _count(db: Database, sql: str) -> int:
    return int(db.query(sql)[0][0])


def test_a_killed_primary_indexer_loses_no_validator_event(tmp_path: Path) -> None:
    path = tmp_path / "snowfield.db"
    with serve_devnet(validators=2) as devnet, receiver() as rx, open_database(str(path)) as db:
        key, _ = create_key(db, "owner")
        webhooks.ensure_secret(db, key.id)
        meta = {"keyType": "nodeId", "keys": [STAKER],
                "subEvents": {"validatorActivitySubEvents": SUBS}}  # fmt: skip
        draft = WebhookRow(
            "", key.id, "validator_activity", rx.url, "", "", P, None, "fuji", "active", 0,
            False, False, meta,
        )  # fmt: skip
        hook = webhooks.create_webhook(db, draft, ())
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        index = ["index-primary", "--node", devnet.base, "--db", str(path),
                 "--batch-containers", "1", "--no-follow"]  # fmt: skip
        first = _spawn(index, tmp_path / "index.log")
        try:
            # Killed once the first event is written, before the rewards' blocks are.
            _until(lambda: _count(db, "SELECT COUNT(*) FROM webhook_outbox") > 0, 120, "an event")
            os.kill(first.pid, signal.SIGKILL)
            first.wait(timeout=10)
        finally:
            terminate(first)
        written = _count(db, "SELECT COUNT(*) FROM webhook_outbox")
        assert written < 4, "the indexer finished before it was killed"
        again = _spawn(index, tmp_path / "index.log")
        assert again.wait(timeout=300) == 0, (tmp_path / "index.log").read_text()[-2000:]
        worker = _spawn(
            ["webhooks", "--db", str(path), "--allow", "127.0.0.0/8", "--poll", "0.05"],
            tmp_path / "worker.log",
        )
        try:
            _until(lambda: len(rx.received) >= 4, 120, "four deliveries")
            time.sleep(0.5)  # nothing more comes
        finally:
            terminate(worker)
        verdicts = validate(webhooks.ensure_secret(db, key.id), rx.received)
    bodies = rx.bodies()
    kinds = sorted(b["event"]["subEventType"] for b in bodies)
    assert kinds == ["delegator_stake", "reward_distribution", "reward_distribution",
                     "validator_stake"]  # fmt: skip
    assert len({b["messageId"] for b in bodies}) == 4 and {b["webhookId"] for b in bodies} == {
        hook.id
    }
    assert {v.get("name") for v in verdicts} == {"SDKValidationError"}, verdicts
