"""Transaction export jobs (POST /v1/operations/transactions:export): their rows, the worker's
lease on them, and the CSV files they produce, kept in the store in chunks.

A job is RUNNING from its creation until a worker finishes it. Workers claim a job with a
lease (`lease_until`, Unix seconds) and renew it while they work; a job whose lease ran out
(its worker died or was stopped) is claimed again by the next worker and starts over, so a
job survives any restart. The file lives in the store (`export_chunks`), so any API process
of a deployment serves its download, whichever process ran it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from snowfield.store.database import Database
from snowfield.store.sql import between

Clock = Callable[[], float]


_COLS = (
    "id, kind, key_id, request, status, code, message, next_date, rows_done, rows_total, token,"
    " created, updated"
)


@dataclass(frozen=True, slots=True)
class ExportJob:
    id: str
    kind: str
    key_id: str | None
    request: dict[str, Any]
    status: str
    code: str | None
    message: str | None
    next_date: str | None
    rows_done: int
    rows_total: int | None
    token: str
    created: int
    updated: int


def _job(r: tuple[Any, ...]) -> ExportJob:
    return ExportJob(
        r[0], r[1], r[2], orjson.loads(r[3]), r[4], r[5], r[6], r[7], int(r[8]),
        None if r[9] is None else int(r[9]), r[10], int(r[11]), int(r[12]),
    )  # fmt: skip


def create_job(
    db: Database,
    job_id: str,
    kind: str,
    key_id: str | None,
    request: dict[str, Any],
    token: str,
    *,
    clock: Clock = time.time,
) -> ExportJob:
    """A new RUNNING job, free for any worker to claim."""
    now = int(clock())
    with db.transaction() as w:
        w.execute(
            f"INSERT INTO export_jobs ({_COLS}, lease_owner, lease_until)"
            " VALUES (?, ?, ?, ?, 'RUNNING', NULL, NULL, NULL, 0, NULL, ?, ?, ?, NULL, 0)",
            (job_id, kind, key_id, orjson.dumps(request).decode(), token, now, now),
        )
    found = get_job(db, job_id)
    assert found is not None
    return found


def get_job(db: Database, job_id: str) -> ExportJob | None:
    row = db.query_one(f"SELECT {_COLS} FROM export_jobs WHERE id = ?", (job_id,))
    return None if row is None else _job(row)


def claim_job(
    db: Database, owner: str, lease: int, *, clock: Clock = time.time
) -> ExportJob | None:
    """The oldest RUNNING job no live worker holds, now leased to `owner` for `lease` s."""
    now = int(clock())
    with db.transaction() as w:
        rows = w.query(
            "SELECT id FROM export_jobs WHERE status = 'RUNNING' AND lease_until < ?"
            " ORDER BY created, id LIMIT 1",
            (now,),
        )
        if not rows:
            return None
        job_id = rows[0][0]
        # Invariant: only the claim that still sees the lease expired takes it (PostgreSQL
        # workers may race past the SELECT; SQLite's writer lock already serialises them).
        taken = w.execute(
            "UPDATE export_jobs SET lease_owner = ?, lease_until = ?, rows_done = 0,"
            " rows_total = NULL, message = NULL, updated = ?"
            " WHERE id = ? AND status = 'RUNNING' AND lease_until < ?",
            (owner, now + lease, now, job_id, now),
        )
        if taken != 1:
            return None
        # A job taken over from a dead worker starts its file again.
        w.execute("DELETE FROM export_chunks WHERE job_id = ?", (job_id,))
    return get_job(db, job_id)


def report_progress(
    db: Database,
    job_id: str,
    owner: str,
    lease: int,
    done: int,
    total: int | None,
    message: str,
    *,
    clock: Clock = time.time,
) -> bool:
    """Records progress and renews the lease; False when the job is no longer `owner`'s."""
    now = int(clock())
    with db.transaction() as w:
        changed = w.execute(
            "UPDATE export_jobs SET rows_done = ?, rows_total = ?, message = ?, updated = ?,"
            " lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'RUNNING'",
            (done, total, message, now, now + lease, job_id, owner),
        )
    return changed == 1


def release_job(db: Database, job_id: str, owner: str) -> None:
    """Gives a RUNNING job up (its worker is stopping): the next claim takes it at once."""
    with db.transaction() as w:
        w.execute(
            "UPDATE export_jobs SET lease_owner = NULL, lease_until = 0"
            " WHERE id = ? AND lease_owner = ? AND status = 'RUNNING'",
            (job_id, owner),
        )


def write_chunk(db: Database, job_id: str, seq: int, data: str) -> None:
    with db.transaction() as w:
        w.execute(
            "INSERT INTO export_chunks (job_id, seq, data) VALUES (?, ?, ?)", (job_id, seq, data)
        )


def finish_job(
    db: Database,
    job_id: str,
    owner: str,
    status: str,
    *,
    code: str | None,
    message: str,
    next_date: str | None,
    done: int,
    clock: Clock = time.time,
) -> bool:
    """Ends the job (COMPLETED, COMPLETED_WITH_WARNING or FAILED) if `owner` still holds it."""
    now = int(clock())
    with db.transaction() as w:
        changed = w.execute(
            "UPDATE export_jobs SET status = ?, code = ?, message = ?, next_date = ?,"
            " rows_done = ?, rows_total = ?, updated = ?, lease_owner = NULL"
            " WHERE id = ? AND lease_owner = ? AND status = 'RUNNING'",
            (status, code, message, next_date, done, done, now, job_id, owner),
        )
    return changed == 1


def chunks_of(db: Database, job_id: str) -> Iterable[str]:
    """The file of a finished job, chunk by chunk (one query per chunk: files can be large)."""
    seq = -1
    while True:
        row = db.query_one(
            "SELECT seq, data FROM export_chunks WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT 1",
            (job_id, seq),
        )
        if row is None:
            return
        seq = int(row[0])
        yield str(row[1])


def expire_jobs(db: Database, older_than: int, *, clock: Clock = time.time) -> int:
    """Forgets finished jobs (and their files) last updated more than `older_than` s ago."""
    cutoff = int(clock()) - older_than
    with db.transaction() as w:
        w.execute(
            "DELETE FROM export_chunks WHERE job_id IN (SELECT id FROM export_jobs"
            " WHERE status <> 'RUNNING' AND updated < ?)",
            (cutoff,),
        )
        return w.execute(
            "DELETE FROM export_jobs WHERE status <> 'RUNNING' AND updated < ?", (cutoff,)
        )


def first_block_at(db: Database, chain_id: int, timestamp: int) -> int | None:
    """The first block of the chain at or after `timestamp` (block times never go back)."""
    row = db.query_one(
        "SELECT MIN(number) FROM blocks WHERE chain_id = ? AND timestamp >= ?",
        (chain_id, timestamp),
    )
    return None if row is None or row[0] is None else int(row[0])


def count_address_txs(
    db: Database, chain_id: int, address: str, start: int | None, end: int | None
) -> int:
    """How many transactions operation 5 lists for the address in [start, end)."""
    rng, params = between("block_number", start, end)
    row = db.query_one(
        f"SELECT COUNT(*) FROM address_txs WHERE chain_id = ? AND address = ?{rng}",
        [chain_id, address, *params],
    )
    return 0 if row is None else int(row[0])
