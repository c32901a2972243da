"""Tables of the data service's own operations: transaction export jobs and their files,
and the log of the requests it answered. Neither holds rows derived from blocks, so an unwind
leaves them alone: an export is a file of what the index held when it ran.

On SQLite the request log lives in the store's companion file, `<store>-usage` (its own
pages, page cache, WAL and locks: `USAGE`, `usage_log.usage_store`), not in the store. In the
store, the log's written pages filled the service connection's page cache beside the pages
operation 5 reads, and the service slowed as they did: its rate with the log, against the same
service without it (bench/api.py part 3, side by side), fell over its first minute or two of
load from ~94-95% to ~89-91% while its memory grew ~0.5 MB/s; a restarted server was back at
95-97% on the same store; a 1 GB cache fell the same, a 4 MB one hardly. In a file of its own
(40 rounds side by side: 96.4% then 96.1%, flat; docs/data-api/operations.md, "Usage") the log
has a cache of its own (USAGE.cache_kib), and its commits, from any connection, leave the
store's readers' caches alone; an indexer's transactions never take its locks. PostgreSQL
keeps the log's tables in the store's schema (its buffers are the server's): the companion
there is the same database."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import orjson

from snowfield.store.migration import Schema
from snowfield.store.sql import in_list

# Key/value facts of a database of ours: its schema's version, the page-token signing secret.
META = """CREATE TABLE IF NOT EXISTS meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL)"""

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

# The request log (store/usage_log.py, store/request_batches.py): the requests of one API key
# that arrived in one second, as one flush wrote them, packed into one row; what many requests
# share is one row of api_request_contexts. `key_id`: the API key they were admitted with (''
# when anonymous or refused); `second`: the Unix second they arrived in; `seq`: the first of
# their sequence numbers (each the writing process's 31-bit tag and a 32-bit counter; a log
# id is arrival ms and sequence number in hex); `requests`: their fields, packed (JSON).
API_REQUEST_BATCHES = """CREATE TABLE IF NOT EXISTS api_request_batches (
        key_id TEXT NOT NULL,
        second BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        requests BYTEA NOT NULL,
        PRIMARY KEY (key_id, second, seq)) WITHOUT ROWID"""
# A context's `request_type` is data | rpc, `route` the template the request matched ("" when
# none).
API_REQUEST_CONTEXTS = """CREATE TABLE IF NOT EXISTS api_request_contexts (
        id BIGINT PRIMARY KEY,
        key_name TEXT,
        request_type TEXT NOT NULL,
        method TEXT NOT NULL,
        route TEXT NOT NULL,
        rpc_method TEXT,
        ip TEXT NOT NULL,
        host TEXT NOT NULL,
        user_agent TEXT NOT NULL)"""
USAGE_TABLES: tuple[str, ...] = (API_REQUEST_BATCHES, API_REQUEST_CONTEXTS)

# The request log's companion file. Its connections' page cache: what a flush writes (the
# last pages of api_request_batches and their parents) and the contexts; the readers of a
# key's log read its batches once each.
USAGE = Schema(
    "usage_schema_version", 1, (META, *USAGE_TABLES), {}, cache_kib=2_048, companion="usage"
)


def move_request_log(w: Any) -> None:
    """Schema 29, SQLite: the request log's rows into the store's companion file, then its
    tables leave the store (PostgreSQL: nothing to do). The companion commits first: a
    migration stopped before the store's commit copies them again at its next start, over
    what is there (ON CONFLICT DO NOTHING), and loses nothing."""
    if w.dialect != "sqlite" or not has_table(w, "api_request_batches"):
        return
    usage = w.database.companion(USAGE)
    with usage.transaction() as u:
        # Each table in key order, from before its first key ('' is the least key_id; ids,
        # seconds and sequence numbers are >= 0), 5,000 rows a step.
        for table, columns, key, first in (
            ("api_request_contexts", f"id, {CONTEXT_COLUMNS}", "id", (-1,)),
            ("api_request_batches", "key_id, second, seq, requests", "key_id, second, seq",
             ("", -1, -1)),
        ):  # fmt: skip
            after: tuple[Any, ...] = first
            while True:
                rows = w.query(
                    f"SELECT {columns} FROM {table} WHERE ({key}) > {in_list(first)}"
                    f" ORDER BY {key} LIMIT 5000",
                    after,
                )
                if not rows:
                    break
                u.executemany(
                    f"INSERT INTO {table} ({columns})"
                    f" VALUES {in_list(rows[0])} ON CONFLICT DO NOTHING",
                    rows,
                )
                after = tuple(rows[-1][: len(first)])
    for table in ("api_request_batches", "api_request_contexts"):
        w.execute(f"DROP TABLE {table}")


# Schemas 24-27 kept one row per request (upgrade 24 copies into it, 28 packs it): `at_ms`
# when it arrived (Unix ms); `path` as requested (no query); `chain_id` its chainId path
# parameter when it had one; `latency_ms` from arrival to the last byte handed to the server;
# `credits` the compute units it was charged.
API_REQUEST_LOG = """CREATE TABLE IF NOT EXISTS api_request_log (
        key_id TEXT NOT NULL,
        at_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        context BIGINT NOT NULL,
        path TEXT NOT NULL,
        status BIGINT NOT NULL,
        chain_id TEXT,
        latency_ms DOUBLE PRECISION NOT NULL,
        credits BIGINT NOT NULL,
        PRIMARY KEY (key_id, at_ms, seq)) WITHOUT ROWID"""
REQUEST_LOG_TABLES_24: tuple[str, ...] = (API_REQUEST_LOG, API_REQUEST_CONTEXTS)

_ID_BITS = 63  # a context id is a positive BIGINT
CONTEXT_COLUMNS = "key_name, request_type, method, route, rpc_method, ip, host, user_agent"


def context_hash(context: Sequence[str | None]) -> int:
    """A context's first candidate id (api_request_contexts' columns in order): the same in
    every process, so that processes sharing a store agree without asking each other."""
    digest = hashlib.blake2b(orjson.dumps(list(context)), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - _ID_BITS)


def store_context(w: Any, context: Sequence[str | None]) -> int:
    """The id of `context` in api_request_contexts, stored under its hash unless another
    context holds that id (then the next free one)."""
    cid = context_hash(context)
    wanted = tuple(context)
    while True:
        w.execute(
            f"INSERT INTO api_request_contexts (id, {CONTEXT_COLUMNS})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            (cid, *wanted),
        )
        stored = w.query(f"SELECT {CONTEXT_COLUMNS} FROM api_request_contexts WHERE id = ?", (cid,))
        if tuple(stored[0]) == wanted:
            return cid
        cid = (cid + 1) % 2**_ID_BITS


_OLD_COLUMNS = (
    f"log_id, key_id, at_ms, path, status, chain_id, latency_ms, credits, {CONTEXT_COLUMNS}"
)


def copy_request_log(w: Any) -> None:
    """Schema 24: the rows of api_requests (one wide row per request, schema 16-23) into
    api_request_log and api_request_contexts, then api_requests goes. A log id of the
    service's own making (12 + 16 hex digits) keeps its sequence number, so apiLogs shows the
    same ids; any other gets one past the service's range (2^63 - n)."""
    if not has_table(w, "api_requests"):
        return
    contexts: dict[tuple[Any, ...], int] = {}
    after = ""
    other = 2**63
    while True:
        rows = w.query(
            f"SELECT {_OLD_COLUMNS} FROM api_requests WHERE log_id > ? ORDER BY log_id LIMIT 10000",
            (after,),
        )
        if not rows:
            break
        out = []
        for r in rows:
            context = tuple(r[8:])
            cid = contexts.get(context)
            if cid is None:
                cid = contexts[context] = store_context(w, context)
            log_id = str(r[0])
            if len(log_id) == 28 and all(ch in "0123456789abcdef" for ch in log_id):
                seq = int(log_id[12:], 16)
            else:
                other -= 1
                seq = other
            key_id = "" if r[1] is None else r[1]
            out.append((key_id, r[2], seq, cid, r[3], r[4], r[5], r[6], r[7]))
        w.executemany(
            "INSERT INTO api_request_log (key_id, at_ms, seq, context, path, status, chain_id,"
            " latency_ms, credits) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            out,
        )
        after = str(rows[-1][0])
    w.execute("DROP TABLE api_requests")


def has_table(w: Any, table: str) -> bool:
    if w.dialect == "sqlite":
        return bool(
            w.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
        )
    return bool(
        w.query(
            "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema()"
            " AND table_name = ?",
            (table,),
        )
    )
