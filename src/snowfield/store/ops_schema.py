"""Tables of the data service's own operations: transaction export jobs and their files,
and the log of the requests it answered. Neither holds rows derived from blocks, so an unwind
leaves them alone: an export is a file of what the index held when it ran."""

from __future__ import annotations

EXPORT_TABLES: tuple[str, ...] = (
    # One row per export job. `request` is the request body as accepted (JSON); `key_id` the
    # API key that asked (NULL: anonymous); `status` RUNNING | COMPLETED |
    # COMPLETED_WITH_WARNING | FAILED; `code` the OperationStatusCode of a warning or failure;
    # `rows_done`/`rows_total` the progress; `token` the secret of the download URL.
    """CREATE TABLE IF NOT EXISTS export_jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        key_id TEXT,
        request TEXT NOT NULL,
        status TEXT NOT NULL,
        code TEXT,
        message TEXT,
        next_date TEXT,
        rows_done BIGINT NOT NULL,
        rows_total BIGINT,
        token TEXT NOT NULL,
        created BIGINT NOT NULL,
        updated BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS export_jobs_by_lease ON export_jobs (status, lease_until)",
    # The CSV of a finished job, in order of `seq` (text: CSV is text on both dialects).
    """CREATE TABLE IF NOT EXISTS export_chunks (
        job_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (job_id, seq))""",
)

USAGE_TABLES: tuple[str, ...] = (
    # One row per request answered. `at_ms`: when it arrived (Unix ms); `key_id`/`key_name` the
    # API key it was admitted with (NULL: anonymous or refused); `request_type` data | rpc;
    # `path` as requested (no query); `route` the template it matched ("" when none);
    # `chain_id` its chainId path parameter when it had one; `latency_ms` from arrival to the
    # last byte handed to the server; `credits` the compute units it was charged.
    """CREATE TABLE IF NOT EXISTS api_requests (
        log_id TEXT PRIMARY KEY,
        at_ms BIGINT NOT NULL,
        key_id TEXT,
        key_name TEXT,
        request_type TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        route TEXT NOT NULL,
        status BIGINT NOT NULL,
        chain_id TEXT,
        rpc_method TEXT,
        latency_ms DOUBLE PRECISION NOT NULL,
        credits BIGINT NOT NULL,
        ip TEXT NOT NULL,
        host TEXT NOT NULL,
        user_agent TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS api_requests_by_key ON api_requests (key_id, at_ms, log_id)",
)
