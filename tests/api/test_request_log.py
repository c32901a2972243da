"""The request log's flush: a batch the store refuses stays pending and goes in whole at the
next flush, its new contexts stored once (none cached from the refused transaction)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from snowfield.api.operations import request_log
from snowfield.api.operations.request_log import RequestLog
from snowfield.store.database import PAGE_SIZE, Database
from snowfield.store.keys import ApiKey
from snowfield.store.usage_log import RequestFilter, requests_in


def _scope(path: str, agent: bytes) -> dict[str, object]:
    return {
        "method": "GET",
        "path": path,
        "client": ("127.0.0.1", 5000),
        "headers": [(b"host", b"127.0.0.1:9650"), (b"user-agent", agent)],
    }


def _record(log: RequestLog, n: int, key: ApiKey) -> None:
    for i in range(n):
        scope = _scope(f"/v1/chains/43112/blocks/{i}", b"agent-%d" % (i % 3))
        started = time.perf_counter()
        log.record(scope, "/v1/chains/{chainId}/blocks/{blockId}", {"chainId": "43112"}, 200,
                   started, key, 2)  # fmt: skip


def test_a_refused_batch_goes_in_whole_at_the_next_flush(db: Database) -> None:
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)

    async def go() -> None:
        log = RequestLog(db, interval=3600)
        _record(log, 1_300, key)  # more than one multi-row INSERT (1,024 rows)
        with db.transaction() as w:  # the store refuses: the log's table is gone
            w.execute("ALTER TABLE api_request_batches RENAME TO parked")
        await log.flush()
        assert len(log._pending) == 1_300
        with db.transaction() as w:
            w.execute("ALTER TABLE parked RENAME TO api_request_batches")
        _record(log, 5, key)
        await log.flush()
        assert log._pending == []

    asyncio.run(go())
    rows = requests_in(db, RequestFilter("k1", 0, 2**62), limit=10_000)
    assert len(rows) == 1_305
    assert len({r.log_id for r in rows}) == 1_305
    assert {r.user_agent for r in rows} == {"agent-0", "agent-1", "agent-2"}
    assert {(r.key_name, r.chain_id, r.status, r.credits) for r in rows} == {
        ("one", "43112", 200, 2)
    }
    assert rows[0].path == "/v1/chains/43112/blocks/0"
    stored = db.query("SELECT COUNT(*) FROM api_request_contexts")[0][0]
    assert stored == 3  # one per user agent, none from the refused transaction


def _sqlite(tmp_path: Path) -> Database:
    db = Database(str(tmp_path / "log.db"))
    db.migrate()
    return db


def test_on_sqlite_a_flush_writes_through_the_loops_own_connection(tmp_path: Path) -> None:
    """The service reads on the event loop's thread; a commit by another connection makes that
    connection drop its page cache (WAL mode), which `PRAGMA data_version` shows: it moves when
    another connection committed. Written inline, the batch leaves it where it was."""
    db = _sqlite(tmp_path)
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)

    async def go() -> tuple[int, int]:
        log = RequestLog(db, interval=3600)
        before = db.query("PRAGMA data_version")[0][0]
        _record(log, 50, key)
        await log.flush()
        return before, db.query("PRAGMA data_version")[0][0]

    before, after = asyncio.run(go())
    assert before == after
    assert len(requests_in(db, RequestFilter("k1", 0, 2**62), limit=100)) == 50


def test_a_flush_never_waits_for_another_writer_on_the_loop(tmp_path: Path) -> None:
    """While another connection holds the write lock (an indexer's batch), the flush hands the
    batch to the worker thread, which waits for the lock; the event loop keeps running, and
    the batch goes in whole once the lock is free."""
    db = _sqlite(tmp_path)
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)
    other = sqlite3.connect(str(tmp_path / "log.db"), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")

    async def go() -> float:
        log = RequestLog(db, interval=3600)
        _record(log, 30, key)
        flushing = asyncio.ensure_future(log.flush())
        started = time.monotonic()
        await asyncio.sleep(0.3)  # the loop runs while the flush waits in the thread
        ticked = time.monotonic() - started
        assert not flushing.done()
        other.execute("COMMIT")
        await asyncio.wait_for(flushing, 30)
        return ticked

    assert asyncio.run(go()) < 1.0
    assert len(requests_in(db, RequestFilter("k1", 0, 2**62), limit=100)) == 30


def test_inline_writes_never_checkpoint_and_the_log_does_it_from_its_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An inline commit leaves its frames in the WAL, even past the connection's checkpoint
    threshold: a second batch makes the WAL longer, where a checkpoint between them would have
    restarted it from its first frame. The log's periodic checkpoint then runs in its worker
    thread and copies every frame."""
    monkeypatch.setattr(request_log, "CHECKPOINT_SECONDS", 0.0)
    db = _sqlite(tmp_path)
    wal = tmp_path / "log.db-wal"
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)
    db.query("PRAGMA wal_autocheckpoint=1")  # any commit past one page would checkpoint
    db.query("PRAGMA wal_checkpoint(TRUNCATE)")  # an empty WAL file: it grows with each commit
    done: list[tuple[str, tuple[int, int, int]]] = []
    checkpoint = db.checkpoint

    def watched() -> tuple[int, int, int]:
        result = checkpoint()
        done.append((threading.current_thread().name, result))
        return result

    async def go() -> list[int]:
        log = RequestLog(db, interval=0.05)
        sizes = []
        for _ in range(2):
            _record(log, 200, key)
            assert log._write_here(log._pending)
            log._pending = []
            sizes.append(wal.stat().st_size)
        monkeypatch.setattr(db, "checkpoint", watched)
        _record(log, 1, key)  # starts the flush task: it flushes, then checkpoints
        for _ in range(100):
            await asyncio.sleep(0.05)
            if done:
                break
        await log.close()
        return sizes

    first, second = asyncio.run(go())
    assert second > first
    assert done, "the log never checkpointed"
    thread, (busy, frames, copied) = done[0]
    assert thread != threading.main_thread().name
    # Every frame of both inline batches was still in the WAL (a checkpoint between them, then
    # the second batch's restart of the WAL, leaves fewer), and the log's checkpoint copied all.
    assert frames >= (second - WAL_HEADER) // (PAGE_SIZE + FRAME_HEADER)
    assert busy == 0 and copied == frames
    assert len(requests_in(db, RequestFilter("k1", 0, 2**62), limit=1000)) == 401


WAL_HEADER, FRAME_HEADER = 32, 24  # bytes, SQLite's WAL file format


def test_a_small_batch_waits_for_more_up_to_max_wait(db: Database) -> None:
    """The log writes when `batch_rows` requests wait, or when the oldest unwritten waited
    `max_wait`; not at every tick (each flush costs a transaction besides its rows)."""
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)

    def stored() -> int:
        return len(requests_in(db, RequestFilter("k1", 0, 2**62), limit=1_000))

    async def go() -> list[int]:
        log = RequestLog(db, interval=0.01, batch_rows=50, max_wait=0.6)
        seen = []
        _record(log, 10, key)
        await asyncio.sleep(0.2)  # twenty ticks: too few requests, too soon
        seen.append(stored())
        _record(log, 45, key)
        await asyncio.sleep(0.1)
        seen.append(stored())
        _record(log, 3, key)
        await asyncio.sleep(0.1)
        seen.append(stored())
        for _ in range(100):  # then max_wait passes
            await asyncio.sleep(0.02)
            if stored() == 58:
                break
        seen.append(stored())
        await log.close()
        return seen

    assert asyncio.run(go()) == [0, 55, 55, 58]


def test_a_request_of_a_known_context_waits_without_its_headers(db: Database) -> None:
    """Once a context is stored, a request that brings the same key, method, route, client and
    headers waits with the context's id and no header of its own; its path is the string an
    earlier request left. Another user agent on the same connection (a proxy's) is another
    context."""
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)

    async def go() -> None:
        log = RequestLog(db, interval=3600)
        _record(log, 3, key)
        assert all(p[7] is None and p[8] is not None for p in log._pending)
        path = log._pending[0][2]
        await log.flush()
        _record(log, 6, key)  # its paths are new strings: equal ones are shared
        assert all(p[7] is not None and p[8] is None for p in log._pending)
        assert log._pending[0][2] == path and log._pending[0][2] is path
        scope = _scope("/v1/chains/43112/blocks/0", b"another agent")
        log.record(scope, "/v1/chains/{chainId}/blocks/{blockId}", {"chainId": "43112"}, 200,
                   time.perf_counter(), key, 2)  # fmt: skip
        assert log._pending[-1][7] is None
        await log.flush()

    asyncio.run(go())
    rows = requests_in(db, RequestFilter("k1", 0, 2**62), limit=100)
    assert len(rows) == 10
    assert [r.user_agent for r in rows[3:9]] == [f"agent-{i % 3}" for i in range(6)]
    assert rows[-1].user_agent == "another agent"
    assert db.query("SELECT COUNT(*) FROM api_request_contexts")[0][0] == 4
