"""The operations group's tables (export jobs and files, the request log): a store written by
an older schema gains them at its next start, on SQLite and PostgreSQL."""

from __future__ import annotations

from snowfield.store import export_jobs, usage_log
from snowfield.store.database import Database
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.usage_log import RequestFilter, RequestRow


def test_an_older_store_gains_the_tables(db: Database) -> None:
    with db.transaction() as w:
        for table in ("export_chunks", "export_jobs", "api_requests"):
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
    row = RequestRow(
        "l1", 1_000, "k", "name", "data", "GET", "/v1/chains", "/v1/chains", 200, None, None,
        1.5, 1, "127.0.0.1", "h", "ua",
    )  # fmt: skip
    usage_log.write_requests(db, [row])
    assert usage_log.requests_in(db, RequestFilter("k", 0, 2_000), limit=10) == [row]
    assert usage_log.requests_in(db, RequestFilter("other", 0, 2_000), limit=10) == []


def test_a_batch_of_any_size_is_written_whole(db: Database) -> None:
    """Batches go in as multi-row INSERTs of decreasing chunk sizes: every row of a batch that
    spans each size (and a remainder of single rows) is stored once, as given."""
    size = usage_log.CHUNK + usage_log.CHUNK // 4 + usage_log.CHUNK // 64 + 4 + 3
    rows = [
        RequestRow(
            f"l{n:06d}",
            1_000 + n,
            "k",
            "name",
            "data",
            "GET",
            f"/p/{n}",
            "/p/{n}",
            200 + n % 3,
            None if n % 2 else "43112",
            None,
            n / 8,
            n % 5,
            "127.0.0.1",
            "h",
            "ua",
        )
        for n in range(size)
    ]
    usage_log.write_requests(db, rows)
    usage_log.write_requests(db, [])
    stored = usage_log.requests_in(db, RequestFilter("k", 0, 10**6), limit=size + 1)
    assert stored == rows
