"""Runs one EVM transaction export: every item operation 5 lists for each (chain, address) of
the request, oldest first, in the request's date range, written as CSV chunks to the store.

Blocking work (store reads and writes, CSV): the worker runs it in a thread. The file is capped
at `max_rows` lines, as the real service caps its files: a longer history ends the job
COMPLETED_WITH_WARNING with `WarnTruncatedExport` and `nextDate`, the day of the first
transaction left out, to ask for the rest with."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from snowfield.api.evm.addresses import Listing
from snowfield.api.evm.addresses import _rendered_transactions as rendered_transactions
from snowfield.api.operations import export_csv
from snowfield.store import chain_queries, documents, evm_queries, export_jobs
from snowfield.store.database import Database
from snowfield.store.export_jobs import ExportJob
from snowfield.store.pagination import Key

DAY = 86_400
PAGE = 1_000  # items read per query (operation 5's read model, ascending keyset)
CHUNK_ROWS = (
    20_000  # lines per stored chunk; progress is reported (and the lease renewed) per chunk
)
_NO_SUBLISTS = documents.sublists((), (), {}, {})


@dataclass(frozen=True, slots=True)
class Outcome:
    status: str  # COMPLETED | COMPLETED_WITH_WARNING
    rows: int
    code: str | None = None
    next_date: str | None = None


class Halted(Exception):
    """Raised when the worker is stopping: the job is left for the next one."""


class LeaseLost(Exception):
    """Raised when another worker took the job over (this one was presumed dead)."""


def day_start(date: str) -> int:
    """Unix seconds of 00:00 UTC of a YYYY-MM-DD date."""
    parsed = datetime.date.fromisoformat(date)
    return int(
        datetime.datetime(parsed.year, parsed.month, parsed.day, tzinfo=datetime.UTC).timestamp()
    )


def _date_of(timestamp: int) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).date().isoformat()


def block_range(
    db: Database, chain_id: int, first: str | None, last: str | None
) -> tuple[int | None, int | None] | None:
    """[start, end) blocks of the dates (lastDate inclusive); None when no block is in range."""
    start = end = None
    if first is not None:
        start = export_jobs.first_block_at(db, chain_id, day_start(first))
        if start is None:
            return None
    if last is not None:
        end = export_jobs.first_block_at(db, chain_id, day_start(last) + DAY)
    if start is not None and end is not None and end <= start:
        return None
    return start, end


def _page(db: Database, listing: Listing) -> tuple[list[dict[str, Any]], Key | None]:
    """Operation 5's items from its read model, as dicts; rendered from the rows when a
    document is missing (as operation 5 does)."""
    page = evm_queries.address_documents(db, listing.chain_id, listing.address, **listing.window())
    stored = [(n, s) for _, _, n, s in page.items if n is not None and s is not None]
    if len(stored) == len(page.items):
        items = [
            {"nativeTransaction": orjson.loads(n), **(orjson.loads(s) if s else _NO_SUBLISTS)}
            for n, s in stored
        ]
        return items, page.next_key
    rendered, again = rendered_transactions(db, listing)
    return [orjson.loads(orjson.dumps(i)) for i in rendered], again.next_key


def _items(
    db: Database, chain_id: int, address: str, start: int | None, end: int | None
) -> Iterator[dict[str, Any]]:
    after: Key | None = None
    while True:
        listing = Listing(chain_id, address, start, end, False, after, PAGE)
        items, after = _page(db, listing)
        yield from items
        if after is None:
            return


def run_export(
    db: Database,
    job: ExportJob,
    owner: str,
    *,
    lease: int,
    max_rows: int,
    chunk_rows: int = CHUNK_ROWS,
    clock: Callable[[], float] = time.time,
    halted: Callable[[], bool] = lambda: False,
) -> Outcome:
    """Writes the job's file; raises LeaseLost when the job is no longer `owner`'s, Halted
    when `halted()` turns true (checked at every chunk)."""
    options = job.request["options"]
    first = job.request.get("firstDate") or job.request.get("startDate")
    last = job.request.get("lastDate") or job.request.get("endDate")
    plan: list[tuple[int, str, int | None, int | None]] = []
    for ref in options["includeChains"]:
        chain = chain_queries.find_chain(db, str(ref))
        blocks = None if chain is None else block_range(db, chain.chain_id, first, last)
        if chain is None or blocks is None:
            continue
        for address in options["addresses"]:
            plan.append((chain.chain_id, address.lower(), *blocks))
    total = min(max_rows, sum(export_jobs.count_address_txs(db, *p) for p in plan))
    done, seq = 0, 0
    lines: list[list[Any]] = []

    def flush() -> None:
        nonlocal seq, lines
        export_jobs.write_chunk(db, job.id, seq, export_csv.write_lines(lines, header=seq == 0))
        seq, lines = seq + 1, []
        message = f"{done} of {total} transactions exported"
        if not export_jobs.report_progress(
            db, job.id, owner, lease, done, total, message, clock=clock
        ):
            raise LeaseLost(job.id)
        if halted():
            raise Halted(job.id)

    for chain_id, address, start, end in plan:
        for item in _items(db, chain_id, address, start, end):
            if done == max_rows:
                lines_left = item["nativeTransaction"]["blockTimestamp"]
                flush()
                return Outcome(
                    "COMPLETED_WITH_WARNING", done, "WarnTruncatedExport", _date_of(lines_left)
                )
            lines.append(export_csv.csv_line(address, item))
            done += 1
            if len(lines) >= chunk_rows:
                flush()
    flush()
    return Outcome("COMPLETED", done)
