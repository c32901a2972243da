"""The WAL checkpoint threshold is a size in bytes, whatever page size a store has."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from snowfield.store.database import WAL_CHECKPOINT_BYTES, Database


def _threshold(db: Database) -> int:
    return int(db.query_one("PRAGMA wal_autocheckpoint")[0])


def test_new_store_checkpoints_after_forty_megabytes(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "new.db"))
    try:
        (page_size,) = db.query_one("PRAGMA page_size")
        assert page_size == 16_384
        assert _threshold(db) * page_size == WAL_CHECKPOINT_BYTES == 40 * 1024 * 1024
    finally:
        db.close()


def test_store_with_small_pages_keeps_the_same_size(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA page_size=4096")
    raw.execute("CREATE TABLE filler (x INTEGER)")  # fixes the file's page size
    raw.commit()
    raw.close()
    db = Database(str(path))
    try:
        assert db.query_one("PRAGMA page_size")[0] == 4_096
        assert _threshold(db) == WAL_CHECKPOINT_BYTES // 4_096 == 10_240
    finally:
        db.close()
