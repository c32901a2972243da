"""kill -9 of `snowfield index` at random moments, then a restart: the store ends with exactly
the rows of an uninterrupted run."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from snowfield.store import writes
from snowfield.store.database import Database
from snowfield.store.dump import dump
from snowfield.testing import index_node, open_database, run_demo_rounds, serve_devnet
from tests.helpers import rpc_reply
from tests.kills import kill_at, peek


def index_command(rpc: str, db: Path, until: int) -> list[str]:
    return [
        sys.executable, "-m", "snowfield", "index", "--rpc", rpc, "--db", str(db),
        "--until", str(until), "--batch-blocks", "2", "--log-level", "warn",
    ]  # fmt: skip


def height(db: Path) -> int:
    if not db.exists():
        return -1
    store = Database(str(db))
    try:
        cp = (
            writes.checkpoint(store, 43112)
            if store.query_one("SELECT name FROM sqlite_master WHERE name = 'checkpoints'")
            else None
        )
    finally:
        store.close()
    return -1 if cp is None else cp[0]


def kill_after(proc: subprocess.Popen[bytes], db: Path, at: int, jitter: float) -> int:
    """SIGKILL once the checkpoint reaches `at` (plus a random moment); the height then."""
    kill_at(proc, lambda: peek_height(db), at, jitter)
    return height(db)


def peek_height(db: Path) -> int:
    got = peek(db, "SELECT height FROM checkpoints WHERE chain_id = 43112")
    return -1 if got is None else int(got)


def test_kill_9_and_restart_gives_the_rows_of_an_uninterrupted_run(tmp_path: Path) -> None:
    rng = random.Random(7)
    with serve_devnet() as node:
        run_demo_rounds(node.rpc, 3)
        head = int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16)
        with open_database(str(tmp_path / "reference.db")) as db:
            index_node(db, node.rpc, until=head)
            reference = dump(db)

        victim = tmp_path / "victim.db"
        stops = sorted(rng.sample(range(0, head - 4), 4))
        heights = []
        for at in stops:
            proc = subprocess.Popen(index_command(node.rpc, victim, head))
            heights.append(kill_after(proc, victim, at, rng.uniform(0, 0.03)))
        assert any(0 <= h < head for h in heights), heights
        final = subprocess.run(index_command(node.rpc, victim, head), timeout=120)
        assert final.returncode == 0
        with open_database(str(victim)) as db:
            assert dump(db) == reference
