"""kill -9 of a child process at a chosen point of its progress, however loaded the machine.

Watching a child's progress and killing it once it reaches a point is a race the watcher can
lose: on a busy machine the child may run to its end between two looks (each test's kills then
all came too late, and it failed though it passed alone). Here the child runs only in short
slices the watcher grants (SIGCONT ... SIGSTOP), and the watcher looks while it stands still:
so it gets at most a slice past the point, whoever the scheduler favours. The kill itself then
comes a random moment after the child runs again, so it still lands anywhere in its work
(inside a transaction included)."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SLICE = 0.005  # seconds the child runs between two looks, by default


def kill_at(
    proc: subprocess.Popen[bytes],
    reached: Callable[[], int],
    at: int,
    jitter: float,
    *,
    timeout: float = 120.0,
    slice_: float = SLICE,
) -> None:
    """Runs `proc` in slices until `reached()` (read while it stands still) is at least `at`
    or it has exited; then SIGKILL `jitter` seconds into its next run."""
    deadline = time.monotonic() + timeout
    try:
        while proc.poll() is None:
            assert time.monotonic() < deadline, f"the child did not reach {at} in {timeout} s"
            os.kill(proc.pid, signal.SIGSTOP)
            if reached() >= at:
                os.kill(proc.pid, signal.SIGCONT)
                time.sleep(jitter)
                break
            os.kill(proc.pid, signal.SIGCONT)
            time.sleep(slice_)
    finally:
        proc.kill()  # SIGKILL: no cleanup, no flush (a stopped process dies too)
        proc.wait()


def peek(db: Path, sql: str) -> Any:
    """The first column of `sql`'s first row in the SQLite store `db`, read-only, or None (no
    store yet, no such row or table, or a lock the stopped child holds: not there yet). A
    read-only connection sets nothing up, so it never waits on the child's locks for long."""
    if not db.exists():
        return None
    with contextlib.suppress(sqlite3.Error):
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.5)
        try:
            row = conn.execute(sql).fetchone()
        finally:
            conn.close()
        return None if row is None else row[0]
    return None
