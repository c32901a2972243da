"""kill -9 of `snowfield index-primary` at random moments, then a restart: the store ends with
exactly the rows of an uninterrupted run."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from snowfield.formats.platform.components import TransferableOutput
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.platform.transfer_txs import BaseTx
from snowfield.store.database import Database
from snowfield.store.dump import PRIMARY, dump
from snowfield.testing import open_database, serve_devnet
from tests.api.test_primary_network import _issue, _wallet
from tests.chains.platform.wallet import KEY2, owner
from tests.kills import kill_at, peek

BLOCKS = 30


def command(base: str, db: Path) -> list[str]:
    return [
        sys.executable, "-m", "snowfield", "index-primary", "--node", base, "--db", str(db),
        "--no-follow", "--batch-containers", "1", "--log-level", "warn",
    ]  # fmt: skip


def next_index(db: Path) -> int:
    if not db.exists():
        return 0
    store = Database(str(db))
    try:
        row = store.query_one("SELECT name FROM sqlite_master WHERE name = 'p_checkpoints'")
        got = store.query_one("SELECT next_index FROM p_checkpoints") if row else None
    finally:
        store.close()
    return 0 if got is None else int(got[0])


def kill_after(proc: subprocess.Popen[bytes], db: Path, at: int, jitter: float) -> int:
    def peeked() -> int:
        got = peek(db, "SELECT next_index FROM p_checkpoints")
        return 0 if got is None else int(got)

    kill_at(proc, peeked, at, jitter, slice_=0.002)
    return next_index(db)


def test_kill_9_and_restart_give_the_rows_of_an_uninterrupted_run(tmp_path: Path) -> None:
    rng = random.Random(11)
    with serve_devnet() as devnet:
        wallet = _wallet(devnet)
        for i in range(BLOCKS):
            out = TransferableOutput(wallet.asset_id, TransferOutput(1_000 + i, owner(KEY2)))
            tx = wallet.build(lambda base: BaseTx(base), 1_000 + i, outputs=[out])
            _issue(devnet, tx)
        reference = tmp_path / "reference.db"
        assert subprocess.run(command(devnet.base, reference), timeout=120).returncode == 0
        with open_database(str(reference)) as db:
            expected = dump(db, PRIMARY)
        assert len(expected["p_blocks"]) == BLOCKS + 1  # and the genesis block
        victim = tmp_path / "victim.db"
        # The pipelined sync indexes a one-container batch in ~1.5 ms: the kills come within a
        # few ms of their stop, and the stops leave half the blocks to go.
        stops = sorted(rng.sample(range(1, BLOCKS // 2), 3))
        reached = [
            kill_after(
                subprocess.Popen(command(devnet.base, victim)), victim, at, rng.uniform(0, 0.005)
            )
            for at in stops
        ]
        assert any(0 < n < BLOCKS for n in reached), reached
        assert subprocess.run(command(devnet.base, victim), timeout=120).returncode == 0
        with open_database(str(victim)) as db:
            assert dump(db, PRIMARY) == expected
