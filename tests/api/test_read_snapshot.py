"""The SQLite reads of one turn of the event loop share one read transaction
(api/operation.py's call_store, store/database.py's hold_snapshot): what another process
commits meanwhile waits for the next turn, what this process commits is read at once, and a
write on the loop's own thread still goes through."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

from snowfield.api.operation import call_store
from snowfield.store.database import Database

COUNT = "SELECT COUNT(*) FROM snapshot_probe"


def _store(tmp_path: Path) -> Database:
    db = Database(str(tmp_path / "store.db"))
    db.migrate()
    with db.transaction() as w:
        w.execute("CREATE TABLE snapshot_probe (n INTEGER)")
    return db


def _insert_from_another_process(path: str) -> None:
    code = (
        "import sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], timeout=30)\n"
        "c.execute('INSERT INTO snapshot_probe VALUES (1)')\n"
        "c.commit()\n"
    )
    subprocess.run([sys.executable, "-c", code, path], check=True, timeout=60)


def _insert_from_another_thread(path: str) -> None:
    def write() -> None:
        other = Database(path)
        with other.transaction() as w:
            w.execute("INSERT INTO snapshot_probe VALUES (2)")
        other.close()

    thread = threading.Thread(target=write)
    thread.start()
    thread.join(60)


def test_one_turn_reads_one_snapshot(tmp_path: Path) -> None:
    db = _store(tmp_path)
    path = db.url.target

    async def run() -> list[int]:
        seen = [(await call_store(db, db.query, COUNT))[0][0]]
        # No await that yields between these reads: the same turn of the loop.
        _insert_from_another_process(path)
        seen.append((await call_store(db, db.query, COUNT))[0][0])
        _insert_from_another_thread(path)  # a commit of this process: the snapshot renews
        seen.append((await call_store(db, db.query, COUNT))[0][0])
        await asyncio.sleep(0)  # the next turn: released
        seen.append(int(db.hold_snapshot()))
        db.release_snapshot()
        _insert_from_another_process(path)
        await asyncio.sleep(0)
        seen.append((await call_store(db, db.query, COUNT))[0][0])
        return seen

    try:
        assert asyncio.run(run()) == [0, 0, 2, 1, 3]
    finally:
        db.close()


def test_a_write_on_the_loop_thread_ends_the_snapshot(tmp_path: Path) -> None:
    db = _store(tmp_path)

    async def run() -> tuple[int, int]:
        before = (await call_store(db, db.query, COUNT))[0][0]
        with db.transaction() as w:  # the same thread, the same connection, the same turn
            w.execute("INSERT INTO snapshot_probe VALUES (3)")
        after = (await call_store(db, db.query, COUNT))[0][0]
        return before, after

    try:
        assert asyncio.run(run()) == (0, 1)
        other = Database(db.url.target)
        assert other.query(COUNT) == [(1,)]  # committed, not held in a transaction
        other.close()
    finally:
        db.close()
