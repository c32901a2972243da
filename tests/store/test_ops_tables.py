"""The operations group's tables (export jobs and files, the request log): a store written by
an older schema gains them at its next start, and a request log of schema 16-23 (one wide row
per request in api_requests) moves to compact rows with shared contexts, on SQLite and
PostgreSQL."""

from __future__ import annotations

import pytest

from snowfield.store import export_jobs, usage_log
from snowfield.store.database import Database
from snowfield.store.ops_schema import context_hash, has_table
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.usage_log import RequestContexts, RequestFilter, RequestRow, log_id

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
        for table in ("export_chunks", "export_jobs", "api_request_log", "api_request_contexts"):
            w.execute(f"DROP TABLE {table}")
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
        w.execute("DROP TABLE api_request_log")
        w.execute("DROP TABLE api_request_contexts")
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
    assert db.query("SELECT COUNT(*) FROM api_request_contexts")[0][0] == 15
    orphans = db.query(
        "SELECT COUNT(*) FROM api_request_log"
        " WHERE NOT EXISTS (SELECT 1 FROM api_request_contexts c WHERE c.id = context)"
    )
    assert orphans[0][0] == 0
    with db.transaction() as w:
        assert not has_table(w, "api_requests") and has_table(w, "api_request_log")


def test_a_batch_of_any_size_is_written_whole(db: Database) -> None:
    """Batches go in as multi-row INSERTs of decreasing chunk sizes: every row of a batch that
    spans each size (and a remainder of single rows) is stored once, as given."""
    size = usage_log.CHUNK + usage_log.CHUNK // 4 + usage_log.CHUNK // 64 + 4 + 3
    rows = [_request(n) for n in range(size)]
    contexts = RequestContexts()
    usage_log.write_requests(db, rows, contexts)
    usage_log.write_requests(db, [], contexts)
    stored = usage_log.requests_in(db, RequestFilter("k", 0, 10**6), limit=size + 1)
    assert stored == rows


def test_contexts_that_share_a_hash_get_ids_of_their_own(db: Database) -> None:
    """A context whose hash another context holds takes the next free id; each reads back
    as written, and a second writer (another process's cache) finds the same ids."""
    a, b = _request(1), _request(2)._replace(user_agent="other agent")
    taken = context_hash(("name", "data", "GET", "/p/{n}", None, "127.0.0.1", "h", "ua1"))
    with db.transaction() as w:  # another context squats on a's id
        w.execute(
            "INSERT INTO api_request_contexts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (taken, "name", "data", "GET", "/q", None, "127.0.0.1", "h", "ua"),
        )
    usage_log.write_requests(db, [a, b], RequestContexts())
    usage_log.write_requests(db, [_request(3)._replace(user_agent="ua1")], RequestContexts())
    ids = [r[0] for r in db.query("SELECT context FROM api_request_log ORDER BY at_ms")]
    assert ids[0] == taken + 1 and ids[2] == ids[0] and ids[1] != ids[0]
    read = usage_log.requests_in(db, RequestFilter("k", 0, 10**6), limit=10)
    assert read[:2] == [a, b] and read[2].user_agent == "ua1" and read[2].route == "/p/{n}"


def test_a_failed_batch_forgets_the_contexts_it_resolved(db: Database) -> None:
    """A context resolved in a transaction that rolls back is not cached: the next batch
    stores it again, so no row names a context the store lacks."""
    contexts = RequestContexts()
    row = _request(1)
    bad = row._replace(log_id=log_id(1_001, 2), path=None)  # NOT NULL: after the context
    with pytest.raises(Exception, match=r"(?i)not.null"):
        usage_log.write_requests(db, [row, bad], contexts)
    assert db.query("SELECT COUNT(*) FROM api_request_contexts")[0][0] == 0
    usage_log.write_requests(db, [row], contexts)
    assert usage_log.requests_in(db, RequestFilter("k", 0, 10**6), limit=10) == [row]
