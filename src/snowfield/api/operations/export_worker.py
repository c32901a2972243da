"""The export worker: claims RUNNING export jobs from the store and runs them, off the request
path. `snowfield serve` runs one beside its servers; several serve processes over one store
share the jobs through their leases (store/export_jobs.py), and a job whose worker stopped is
taken over when its lease runs out."""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
import time
from collections.abc import Callable

from snowfield.api.operations.export_primary import PRIMARY, run_primary_export
from snowfield.api.operations.export_run import Halted, LeaseLost, run_export
from snowfield.store import export_jobs
from snowfield.store.database import Database

log = logging.getLogger("snowfield.exports")

LEASE = 60  # seconds a claim holds without progress; progress comes every chunk (seconds)
KEEP = 7 * 86_400  # finished jobs and their files are forgotten a week after they end


class ExportWorker:
    def __init__(
        self,
        db: Database,
        *,
        max_rows: int,
        lease: int = LEASE,
        poll: float = 1.0,
        keep: int = KEEP,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.max_rows = max_rows
        self.lease = lease
        self.poll = poll
        self.keep = keep
        self.clock = clock
        self.owner = secrets.token_hex(8)  # this worker's name in the leases it takes
        self._expired = 0.0  # when finished jobs were last expired (at most once an hour)
        self._halt = threading.Event()

    def run_once(self) -> bool:
        """Claims and runs one job; False when none is waiting. Blocking."""
        job = export_jobs.claim_job(self.db, self.owner, self.lease, clock=self.clock)
        if job is None:
            return False
        run = run_primary_export if job.kind in PRIMARY else run_export
        try:
            outcome = run(
                self.db, job, self.owner, lease=self.lease, max_rows=self.max_rows,
                clock=self.clock, halted=self._halt.is_set,
            )  # fmt: skip
        except Halted:  # the next worker takes it over at once
            export_jobs.release_job(self.db, job.id, self.owner)
            return True
        except LeaseLost:
            log.warning("export %s was taken over by another worker", job.id)
            return True
        except Exception:
            log.exception("export %s failed", job.id)
            export_jobs.finish_job(
                self.db, job.id, self.owner, "FAILED", code="ErrInternal",
                message="the export failed", next_date=None, done=0, clock=self.clock,
            )  # fmt: skip
            return True
        message = f"{outcome.rows} transactions exported"
        if outcome.code == "WarnTruncatedExport":
            message += f"; the file is capped at {self.max_rows}: ask again from nextDate"
        export_jobs.finish_job(
            self.db, job.id, self.owner, outcome.status, code=outcome.code, message=message,
            next_date=outcome.next_date, done=outcome.rows, clock=self.clock,
        )  # fmt: skip
        return True

    def drain(self) -> int:
        """Runs every waiting job; how many ran. Blocking (tests and benches)."""
        ran = 0
        while self.run_once():
            ran += 1
        return ran

    def stop(self) -> None:
        """Asks `run` to end; a job under way stops at its next chunk and is released."""
        self._halt.set()

    async def run(self) -> None:
        """Runs jobs until `stop`; each job in a worker thread."""
        while not self._halt.is_set():
            ran = False
            try:
                ran = await asyncio.to_thread(self.run_once)
                if not ran and self.clock() - self._expired > 3600:
                    self._expired = self.clock()
                    await asyncio.to_thread(export_jobs.expire_jobs, self.db, self.keep)
            except Exception:  # a store outage: wait and try again
                log.exception("export worker")
            if not ran:
                await asyncio.sleep(self.poll)
