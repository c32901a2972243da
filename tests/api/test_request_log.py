"""The request log's flush: a batch the store refuses stays pending and goes in whole at the
next flush, its new contexts stored once (none cached from the refused transaction); on
SQLite the log is a file of its own, which neither disturbs nor waits for the store."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from snowfield.api.operations.request_log import RequestLog
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey
from snowfield.store.ops_schema import USAGE
from snowfield.store.usage_log import RequestFilter, requests_in, usage_store


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
        with usage_store(db).transaction() as w:  # the log's table is gone: refused
            w.execute("ALTER TABLE api_request_batches RENAME TO parked")
        await log.flush()
        assert len(log._pending) == 1_300
        with usage_store(db).transaction() as w:
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
    stored = usage_store(db).query("SELECT COUNT(*) FROM api_request_contexts")[0][0]
    assert stored == 3  # one per user agent, none from the refused transaction


def _sqlite(tmp_path: Path) -> Database:
    db = Database(str(tmp_path / "log.db"))
    db.migrate()
    return db


def test_on_sqlite_the_log_is_a_file_of_its_own(tmp_path: Path) -> None:
    """The service reads the store on the event loop's thread; a commit to the store by another
    connection makes that connection drop its page cache (WAL mode), which `PRAGMA
    data_version` shows. The log's flush, from the worker thread, commits to `<store>-usage`
    and leaves it where it was; the store holds no table of the log, and every connection to
    the log's file keeps the small cache of its schema."""
    db = _sqlite(tmp_path)
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)

    async def go() -> tuple[int, int, int]:
        log = RequestLog(db, interval=3600)
        before = db.query("PRAGMA data_version")[0][0]
        _record(log, 50, key)
        await log.flush()
        cache = await asyncio.to_thread(usage_store(db).query, "PRAGMA cache_size")
        return before, db.query("PRAGMA data_version")[0][0], cache[0][0]

    before, after, cache = asyncio.run(go())
    assert before == after
    assert cache == -USAGE.cache_kib
    assert len(requests_in(db, RequestFilter("k1", 0, 2**62), limit=100)) == 50
    assert (tmp_path / "log.db-usage").exists()
    assert db.query("SELECT name FROM sqlite_master WHERE name LIKE 'api_request%'") == []


def test_a_flush_waits_for_no_indexer_and_never_on_the_loop(tmp_path: Path) -> None:
    """While another connection holds the store's write lock (an indexer's batch), a flush goes
    in at once. While one holds the log's (another server's flush), the flush waits in the
    worker thread; the event loop keeps running, and the batch goes in whole once it is
    free."""
    db = _sqlite(tmp_path)
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)
    indexer = sqlite3.connect(str(tmp_path / "log.db"), isolation_level=None)
    other = sqlite3.connect(str(tmp_path / "log.db-usage"), isolation_level=None)

    async def go() -> float:
        log = RequestLog(db, interval=3600)
        indexer.execute("BEGIN IMMEDIATE")
        _record(log, 20, key)
        await asyncio.wait_for(log.flush(), 5)
        assert log._pending == []
        indexer.execute("COMMIT")
        other.execute("BEGIN IMMEDIATE")
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
    assert len(requests_in(db, RequestFilter("k1", 0, 2**62), limit=100)) == 50


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
    assert usage_store(db).query("SELECT COUNT(*) FROM api_request_contexts")[0][0] == 4
