"""kill -9 of `snowfield index` mid-run (rollups commit with their blocks), then a restart: the
rollup tables and every answer of the service equal those of an uninterrupted run."""

from __future__ import annotations

import random
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

from snowfield.store.database import Database
from snowfield.store.dump import dump
from snowfield.testing import index_node, open_database, serve_devnet
from tests.helpers import rpc_reply
from tests.indexer.test_kill import height, index_command, peek_height
from tests.kills import kill_at
from tests.metrics.brute import INTERVALS
from tests.metrics.traffic import build_history, fetch_series, first_monday_after, serve_metrics

# The rollup state; rollup_runs is left out (it records when, which differs between runs).
ROLLUPS = {
    "rollups": "chain_id, span, bucket",
    "rollup_members": "chain_id, kind, span, bucket, member",
    "rollup_first_seen": "chain_id, kind, member",
}


def answers(db: Database) -> dict[tuple[str, str], Any]:
    out: dict[tuple[str, str], Any] = {}
    with serve_metrics(db) as base, httpx.Client(timeout=30) as client:
        for metric, intervals in INTERVALS.items():
            for interval in intervals:
                out[(metric, interval)] = fetch_series(
                    client, base, "43112", metric, timeInterval=interval, pageSize=2160
                )
    return out


def test_kill_9_mid_rollup_and_restart(tmp_path: Path) -> None:
    rng = random.Random(11)
    with serve_devnet() as node:
        monday = first_monday_after(int(time.time()))
        build_history(node, monday, [0, 1, 6, 7, 13, 35], demo_days={1})
        head = int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16)
        with open_database(str(tmp_path / "reference.db")) as db:
            index_node(db, node.rpc, until=head, batch_blocks=3)
            reference, expected = dump(db, ROLLUPS), answers(db)
        assert reference["rollups"] and reference["rollup_first_seen"]

        victim = tmp_path / "victim.db"
        heights = []
        for at in sorted(rng.sample(range(0, head - 4), 4)):
            proc = subprocess.Popen(index_command(node.rpc, victim, head))
            # SIGKILL a random moment past `at`: possibly inside a batch's transaction
            kill_at(proc, lambda: peek_height(victim), at, rng.uniform(0, 0.02))
            heights.append(height(victim))
        assert any(0 <= h < head for h in heights), heights
        assert subprocess.run(index_command(node.rpc, victim, head), timeout=120).returncode == 0
        with open_database(str(victim)) as db:
            assert dump(db, ROLLUPS) == reference
            assert answers(db) == expected
