"""The operations group's tables (export jobs and files, the request log): a store written by
an older schema gains them at its next start, and a request log of schema 16-23 (one wide row
per request in api_requests) moves to compact rows with shared contexts, on SQLite and
PostgreSQL."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from snowfield.store import export_jobs, request_batches, usage_log
from snowfield.store.database import Database, Writer
from snowfield.store.ops_schema import (
    REQUEST_LOG_TABLES_24,
    USAGE_TABLES,
    context_hash,
    has_table,
    move_request_log,
)
from snowfield.store.schema import SCHEMA_VERSION, ddl_for
from snowfield.store.usage_log import (
    RequestContexts,
    RequestFilter,
    RequestRow,
    log_id,
    usage_store,
)

# api_requests as schemas 16 to 23 had it.
_OLD_LOG = (
    """CREATE TABLE api_requests (
        log_id TEXT PRIMARY KEY, at_ms BIGINT NOT NULL, key_id TEXT, key_name TEXT,
        request_type TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL,
        route TEXT NOT NULL, status BIGINT NOT NULL, chain_id TEXT, rpc_method TEXT,
        latency_ms DOUBLE PRECISION NOT NULL, credits BIGINT NOT NULL, ip TEXT NOT NULL,
        host TEXT NOT NULL, user_agent TEXT NOT NULL)""",
    "CREATE INDEX api_requests_by_key ON api_requests (key_id, at_ms, log_id)",
)


def _request(n: int, key_id: str | None = "k", seq: int = 0) -> RequestRow:
    at = 1_000 + n
    return RequestRow(
        log_id(at, seq or n), at, key_id, None if key_id is None else "name", "data", "GET",
        f"/p/{n}", "/p/{n}", 200 + n % 3, None if n % 2 else "43112", None, n / 8, n % 5,
        "127.0.0.1", "h", f"ua{n % 7}",
    )  # fmt: skip


def test_an_older_store_gains_the_tables(db: Database) -> None:
    with db.transaction() as w:
        for table in (
            "export_chunks", "export_jobs", "api_request_batches", "api_request_contexts"
        ):  # fmt: skip
            w.execute(f"DROP TABLE IF EXISTS {table}")  # the log's: in the companion (SQLite)
        w.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    job = export_jobs.create_job(db, "j1", "TRANSACTION_EXPORT_EVM", None, {"o": 1}, "t")
    assert job.status == "RUNNING" and job.request == {"o": 1}
    claimed = export_jobs.claim_job(db, "w", 60, clock=lambda: 10**9 * 3.0)
    assert claimed is not None and claimed.id == "j1"
    export_jobs.write_chunk(db, "j1", 0, "a,b\r\n")
    export_jobs.write_chunk(db, "j1", 1, "1,2\r\n")
    assert "".join(export_jobs.chunks_of(db, "j1")) == "a,b\r\n1,2\r\n"
    row = _request(1)
    usage_log.write_requests(db, [row], RequestContexts())
    assert usage_log.requests_in(db, RequestFilter("k", 0, 2_000), limit=10) == [row]
    assert usage_log.requests_in(db, RequestFilter("other", 0, 2_000), limit=10) == []


def test_a_request_log_of_schema_23_keeps_its_rows_and_ids(db: Database) -> None:
    """Every row of the wide table reads back the same after the upgrade, log ids included
    (one not of the service's making gets a sequence number of its own); api_requests goes."""
    made = [_request(n, key_id=None if n % 4 == 0 else "k", seq=(7 << 32) + n) for n in range(40)]
    with db.transaction() as w:
        w.execute("DROP TABLE IF EXISTS api_request_batches")
        w.execute("DROP TABLE IF EXISTS api_request_contexts")
        for ddl in _OLD_LOG:
            w.execute(ddl)
        w.executemany(f"INSERT INTO api_requests VALUES ({', '.join('?' * 16)})", made)
        w.execute(
            f"INSERT INTO api_requests VALUES ({', '.join('?' * 16)})",
            ("l1", 5_000, "k", "name", "rpc", "POST", "/x", "", 200, None, "eth_call", 1.5,
             1, "::1", "h", "ua"),
        )  # fmt: skip
        w.execute("UPDATE meta SET value = '23' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    mine = [r for r in made if r.key_id == "k"]
    read = usage_log.requests_in(db, RequestFilter("k", 0, 5_000), limit=100)
    assert read == mine
    anonymous = usage_log.requests_in(db, RequestFilter(None, 0, 5_000), limit=100)
    assert anonymous == [r for r in made if r.key_id is None]
    (other,) = usage_log.requests_in(db, RequestFilter("k", 5_000, 5_001), limit=10)
    assert other.log_id == log_id(5_000, 2**63 - 1) and other.rpc_method == "eth_call"
    assert other.ip == "::1" and other.request_type == "rpc" and other.key_name == "name"
    # The 40 rows share 2 x 7 contexts (key name x user agent), the odd one a fifteenth.
    assert usage_store(db).query("SELECT COUNT(*) FROM api_request_contexts")[0][0] == 15
    with db.transaction() as w:
        assert not has_table(w, "api_requests") and not has_table(w, "api_request_log")


def _stored(db: Database) -> list[list[request_batches.Unpacked]]:
    """Every stored request, batch by batch in key order."""
    return [
        list(request_batches.unpack(int(second), int(seq), packed))
        for second, seq, packed in usage_store(db).query(
            "SELECT second, seq, requests FROM api_request_batches ORDER BY key_id, second, seq"
        )
    ]


def _stored_rows(
    w: Writer, made: list[RequestRow], contexts: RequestContexts
) -> list[tuple[Any, ...]]:
    """`made` as stored rows (StoredRequest's order), their contexts stored in `w`'s
    transaction: a log as an older schema's writer left it."""
    stored: list[tuple[Any, ...]] = []
    for r in made:
        context = usage_log.Context(r.key_name, r.request_type, r.method, r.route,
                                    r.rpc_method, r.ip, r.host, r.user_agent)  # fmt: skip
        cid = contexts.get(context)
        if cid is None:
            cid = contexts.resolve(w, context, context)
        stored.append(("" if r.key_id is None else r.key_id, r.at_ms, int(r.log_id[12:], 16),
                       cid, r.path, r.status, r.chain_id, r.latency_ms, r.credits))  # fmt: skip
    return stored


def test_a_request_log_of_schema_27_is_packed_with_its_ids(db: Database) -> None:
    """Rows of api_request_log (schemas 24-27) read back the same after the upgrade, in one
    batch per key and second (the upgrade's steps of 10,000 rows split one second in two);
    api_request_log goes."""
    contexts = RequestContexts()
    made = [_request(n, key_id=None if n % 1000 == 7 else "k", seq=(5 << 32) + n)
            for n in range(10_050)]  # fmt: skip
    with db.transaction() as w:
        for ddl in REQUEST_LOG_TABLES_24:
            w.execute(ddl_for(db.dialect, ddl))
        stored = _stored_rows(w, made, contexts)
        w.executemany(
            "INSERT INTO api_request_log (key_id, at_ms, seq, context, path, status, chain_id,"
            " latency_ms, credits) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            stored,
        )
        w.execute("UPDATE meta SET value = '27' WHERE key = 'schema_version'")
    contexts.committed(True)
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    every = RequestFilter("k", 0, 10**7)
    assert usage_log.requests_in(db, every, limit=20_000) == [r for r in made if r.key_id]
    anonymous = usage_log.requests_in(db, RequestFilter(None, 0, 10**7), limit=100)
    assert anonymous == [r for r in made if r.key_id is None]
    # Seconds 1 to 11 of key "k" (1,000 requests each, the last 50), the step's cut
    # splitting second 10 (key order: "" first, then "k"); 11 batches of the anonymous key.
    batches = usage_store(db).query(
        "SELECT key_id, second FROM api_request_batches ORDER BY key_id, second"
    )
    assert [b[1] for b in batches if b[0] == ""] == list(range(1, 12))
    assert [b[1] for b in batches if b[0] == "k"] == [*range(1, 10), 10, 10, 11]
    with db.transaction() as w:
        assert not has_table(w, "api_request_log")


def test_readers_merge_the_batches_of_a_second(db: Database) -> None:
    """A second written in several batches (flushes, processes) reads as one, in (time,
    sequence) order either way; pages of apiLogs cross seconds and cut inside one, and a
    filter on a context's field or a row's reads only what matches."""
    contexts = RequestContexts()
    # Three writers' requests interleaved over seconds 2-4, 40 batches in all (a reader's
    # step is 64 batches: one read crosses steps).
    rows = []
    for n in range(1_200):
        at, seq = 2_000 + n * 5 // 2, ((n % 3) << 32) + n  # pairs share a millisecond
        rows.append(_request(n)._replace(log_id=log_id(at, seq), at_ms=at))
    written = rows[:]
    random.Random(7).shuffle(written)
    for chunk in range(0, len(written), 40):
        usage_log.write_requests(db, written[chunk : chunk + 40], contexts)
    assert len(usage_store(db).query("SELECT 1 FROM api_request_batches")) > 64
    oldest = sorted(rows, key=lambda r: (r.at_ms, r.log_id))
    every = RequestFilter("k", 0, 10**6)
    assert usage_log.requests_in(db, every, limit=2_000) == oldest
    assert usage_log.requests_in(db, every, limit=7) == oldest[:7]
    newest, after = [], None
    while True:
        page = usage_log.requests_page(db, every, after=after, limit=45)
        newest += page.items
        if page.next_key is None:
            break
        after = page.next_key
    assert newest == oldest[::-1]
    narrow = RequestFilter("k", 2_500, 3_500, status=201)
    assert usage_log.requests_in(db, narrow, limit=1_000) == [
        r for r in oldest if 2_500 <= r.at_ms < 3_500 and r.status == 201
    ]
    (one,) = usage_log.requests_in(db, RequestFilter("k", 0, 10**6, path="/p/104"), limit=9)
    assert one == rows[104]
    data = RequestFilter("k", 0, 10**6, chain_id="43112", request_type="data")
    assert usage_log.requests_in(db, data, limit=1_000) == [r for r in oldest if r.chain_id]
    rpc = RequestFilter("k", 0, 10**6, request_type="rpc")
    assert usage_log.requests_in(db, rpc, limit=100) == []


def test_a_write_is_packed_by_key_and_second(db: Database) -> None:
    """Requests of two keys over three seconds are six batches, each read back whole; an
    empty write writes none."""
    rows = [_request(n, key_id="k" if n % 2 else "j") for n in range(0, 3_000, 7)]
    contexts = RequestContexts()
    usage_log.write_requests(db, rows, contexts)
    usage_log.write_requests(db, [], contexts)
    assert len(usage_store(db).query("SELECT 1 FROM api_request_batches")) == 6
    for key in ("j", "k"):
        stored = usage_log.requests_in(db, RequestFilter(key, 0, 10**6), limit=1_000)
        assert stored == [r for r in rows if r.key_id == key]


def test_contexts_that_share_a_hash_get_ids_of_their_own(db: Database) -> None:
    """A context whose hash another context holds takes the next free id; each reads back
    as written, and a second writer (another process's cache) finds the same ids."""
    a, b = _request(1), _request(2)._replace(user_agent="other agent")
    taken = context_hash(("name", "data", "GET", "/p/{n}", None, "127.0.0.1", "h", "ua1"))
    with usage_store(db).transaction() as w:  # another context squats on a's id
        w.execute(
            "INSERT INTO api_request_contexts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (taken, "name", "data", "GET", "/q", None, "127.0.0.1", "h", "ua"),
        )
    usage_log.write_requests(db, [a, b], RequestContexts())
    usage_log.write_requests(db, [_request(3)._replace(user_agent="ua1")], RequestContexts())
    ids = [r[2] for second in _stored(db) for r in second]
    assert ids[0] == taken + 1 and ids[2] == ids[0] and ids[1] != ids[0]
    read = usage_log.requests_in(db, RequestFilter("k", 0, 10**6), limit=10)
    assert read[:2] == [a, b] and read[2].user_agent == "ua1" and read[2].route == "/p/{n}"


def test_a_failed_batch_forgets_the_contexts_it_resolved(db: Database) -> None:
    """A context resolved in a transaction that rolls back is not cached: the next batch
    stores it again, so no row names a context the store lacks."""
    contexts = RequestContexts()
    row = _request(1)
    with usage_store(db).transaction() as w:  # the log refuses the batch, after the context
        w.execute("ALTER TABLE api_request_batches RENAME TO parked")
    with pytest.raises(Exception, match=r"(?i)api_request_batches"):
        usage_log.write_requests(db, [row], contexts)
    assert usage_store(db).query("SELECT COUNT(*) FROM api_request_contexts")[0][0] == 0
    with usage_store(db).transaction() as w:
        w.execute("ALTER TABLE parked RENAME TO api_request_batches")
    usage_log.write_requests(db, [row], contexts)
    assert usage_log.requests_in(db, RequestFilter("k", 0, 10**6), limit=10) == [row]


def test_a_sqlite_request_log_of_schema_28_moves_to_its_companion_file(tmp_path: Path) -> None:
    """Schema 29: a SQLite store's request log leaves the store for `<store>-usage` and reads
    back the same, log ids included. A migration stopped after the companion's commit (the
    store's transaction rolled back) moves the rows again at the next start, doubling none."""
    db = Database(str(tmp_path / "s.db"))
    db.migrate()
    made = [_request(n, key_id=None if n % 9 == 0 else "k") for n in range(3_000)]
    contexts = RequestContexts()
    with db.transaction() as w:  # the store as schema 28 left it: the log inside
        for ddl in USAGE_TABLES:
            w.execute(ddl)
        usage_log.insert_requests(w, _stored_rows(w, made, contexts))
        w.execute("UPDATE meta SET value = '28' WHERE key = 'schema_version'")
    contexts.committed(True)
    batches = db.query("SELECT COUNT(*) FROM api_request_batches")[0][0]
    with pytest.raises(RuntimeError), db.transaction() as w:
        move_request_log(w)
        raise RuntimeError("stopped before the store's commit")
    with db.transaction() as w:
        assert has_table(w, "api_request_batches")  # still in the store, and copied
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    with db.transaction() as w:
        assert not has_table(w, "api_request_batches")
        assert not has_table(w, "api_request_contexts")
    assert (tmp_path / "s.db-usage").exists()
    log = usage_store(db)
    assert log.query("SELECT COUNT(*) FROM api_request_batches")[0][0] == batches
    assert log.query("SELECT COUNT(*) FROM api_request_contexts")[0][0] == 2 * 7
    every = RequestFilter("k", 0, 10**7)
    assert usage_log.requests_in(db, every, limit=5_000) == [r for r in made if r.key_id]
    anonymous = usage_log.requests_in(db, RequestFilter(None, 0, 10**7), limit=5_000)
    assert anonymous == [r for r in made if r.key_id is None]
    db.close()
