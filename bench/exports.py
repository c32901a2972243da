"""Transaction exports: the time to export N transactions of one address (default 1,000,000)
to CSV, on SQLite and on PostgreSQL, against a plain dump of the same rows in the same run.

The store is synthetic and schema-faithful (written with `write_batch`): N native transfers
sent by one address, 20 a block. The export is the worker's own code path
(`ExportWorker.drain`: the job's lease, operation 5's read model in pages of 1,000, CSV, chunks
of 20,000 lines written to the store). The baseline reads the same rows with the same keyset
query in pages of 10,000 and writes their two documents to a CSV file, nothing else: the
ratio is what rendering operation 5's items as CSV lines and storing the file cost over
reading them. Target (issue 32): the export within 60 s. Stores are cached under
.bench/exports/ (SQLite) and in a schema of its own (PostgreSQL); every loop is bounded.

    python bench/exports.py [--rows 1000000] [--pg postgresql://127.0.0.1:5432/test | --no-pg]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import tempfile
import time
from pathlib import Path

from snowfield.api.operations.export_worker import ExportWorker
from snowfield.store import export_jobs
from snowfield.store.database import Database
from snowfield.store.rows import BalanceRow, BlockBundle, BlockRow, ChainRow, TxRow
from snowfield.store.schema import SCHEMA_VERSION, TABLES
from snowfield.store.writes import upsert_chain, write_batch

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".bench" / "exports"
CHAIN_ID = 43112
SENDER = "0x" + "e4" * 20  # the exported address
PER_BLOCK = 20
BLOCKS_PER_BATCH = 1_000
BUILD_LIMIT = 1_800.0  # seconds for building one store
TARGET_SECONDS = 60.0
GENERATOR_VERSION = 1


def _hash(kind: int, n: int) -> str:
    return f"0x{kind:02x}{n:062x}"


def _receiver(g: int) -> str:
    return f"0x{(g % 50_000 + 1) * 0x9E3779B97F4A7C15 % 2**160:040x}"


def _block(number: int) -> BlockBundle:
    ts = 1_700_000_000 + 2 * number
    block = BlockRow(CHAIN_ID, number, _hash(0, number), _hash(0, number - 1), ts,
                     PER_BLOCK * 21_000, 15_000_000, 25 * 10**9, PER_BLOCK,
                     _receiver(number))  # fmt: skip
    txs, activity = [], []
    for i in range(PER_BLOCK):
        g = (number - 1) * PER_BLOCK + i
        to = _receiver(g)
        txs.append(TxRow(CHAIN_ID, number, i, _hash(1, g), block.hash, ts, SENDER, to,
                         10**15 + g, g, 21_000, 21_000, 25 * 10**9 + g % 10**9, 2, 1, "",
                         None))  # fmt: skip
        activity += [(SENDER, i), (to, i)]
    balances = (BalanceRow(CHAIN_ID, SENDER, number, 10**24 - number),)
    return BlockBundle(block, tuple(txs), (), (), (), balances, tuple(activity))


def build(db: Database, rows: int) -> None:
    upsert_chain(db, ChainRow(CHAIN_ID, "Bench C-Chain", "local", "http://127.0.0.1:9650/rpc",
                              description="synthetic rows of bench/exports.py"))  # fmt: skip
    started = shown = time.monotonic()
    blocks = rows // PER_BLOCK
    for start in range(1, blocks + 1, BLOCKS_PER_BATCH):
        count = min(BLOCKS_PER_BATCH, blocks + 1 - start)
        write_batch(db, CHAIN_ID, [_block(n) for n in range(start, start + count)])
        now = time.monotonic()
        if now - started > BUILD_LIMIT:
            raise SystemExit(f"building {rows:,} rows took over {BUILD_LIMIT:.0f} s; aborted")
        if now - shown > 10:
            shown = now
            done = (start + count - 1) * PER_BLOCK
            print(f"  built {done:,} of {rows:,} ({now - started:.0f} s)", flush=True)


def stored_rows(db: Database) -> int:
    row = db.query_one(
        "SELECT COUNT(*) FROM address_txs WHERE chain_id = ? AND address = ?", (CHAIN_ID, SENDER)
    )
    return 0 if row is None else int(row[0])


def plain_dump(db: Database, out: Path) -> int:
    """The baseline: the same rows, keyset pages of 10,000, both documents to a CSV file."""
    after: tuple[int, int] = (-1, -1)
    written = 0
    with open(out, "w", newline="") as f:
        writer = csv.writer(f)
        for _ in range(10**6):  # bounded: 10^10 rows
            rows = db.query(
                "SELECT a.block_number, a.tx_index, t.document, a.document FROM address_txs a"
                " JOIN transactions t ON t.chain_id = a.chain_id"
                " AND t.block_number = a.block_number AND t.tx_index = a.tx_index"
                " WHERE a.chain_id = ? AND a.address = ? AND (a.block_number, a.tx_index) > (?, ?)"
                " ORDER BY a.block_number, a.tx_index LIMIT 10000",
                (CHAIN_ID, SENDER, *after),
            )
            if not rows:
                break
            writer.writerows((r[2], r[3]) for r in rows)
            written += len(rows)
            after = (int(rows[-1][0]), int(rows[-1][1]))
    return written


def export(db: Database, rows: int) -> tuple[float, int]:
    """Seconds for the worker to run one export job of every row; the rows in its file."""
    request = {
        "type": "TRANSACTION_EXPORT_EVM",
        "options": {"addresses": [SENDER], "includeChains": [str(CHAIN_ID)]},
    }
    job_id = f"bench-{time.time_ns()}"
    export_jobs.create_job(db, job_id, "TRANSACTION_EXPORT_EVM", None, request, "t")
    started = time.perf_counter()
    ExportWorker(db, max_rows=rows).drain()
    seconds = time.perf_counter() - started
    job = export_jobs.get_job(db, job_id)
    assert job is not None and job.status == "COMPLETED", job
    size = sum(len(c) for c in export_jobs.chunks_of(db, job_id))
    with db.transaction() as w:  # the bench's files do not stay in the store
        w.execute("DELETE FROM export_chunks WHERE job_id = ?", (job_id,))
        w.execute("DELETE FROM export_jobs WHERE id = ?", (job_id,))
    print(f"    export file: {size / 2**20:,.0f} MiB")
    return seconds, job.rows_done


def measure(name: str, db: Database, rows: int) -> None:
    have = stored_rows(db)
    if have != rows:
        if have:
            raise SystemExit(f"{name}: the store holds {have:,} rows, not {rows:,}: remove it")
        print(f"  {name}: building {rows:,} rows", flush=True)
        build(db, rows)
    print(f"  {name}: {stored_rows(db):,} transactions of {SENDER}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        dumped = plain_dump(db, Path(tmp) / "dump.csv")
        baseline = time.perf_counter() - started
        size = (Path(tmp) / "dump.csv").stat().st_size
    print(f"    plain dump: {dumped:,} rows in {baseline:.1f} s ({size / 2**20:,.0f} MiB)")
    seconds, exported = export(db, rows)
    verdict = "within" if seconds <= TARGET_SECONDS else "OVER"
    print(f"    export:     {exported:,} rows in {seconds:.1f} s ({exported / seconds:,.0f} rows/s)"
          f" — {verdict} the {TARGET_SECONDS:.0f} s target; {seconds / baseline:.2f}x the plain"
          " dump", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--pg", default="postgresql://127.0.0.1:5432/test")
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    args = parser.parse_args()
    if args.rows % PER_BLOCK:
        raise SystemExit(f"--rows must be a multiple of {PER_BLOCK}")
    digest = hashlib.sha256("\n".join(TABLES).encode()).hexdigest()[:10]
    tag = f"{args.rows}-schema{SCHEMA_VERSION}-{digest}-gen{GENERATOR_VERSION}"
    print(f"bench/exports.py: {args.rows:,} transactions, cores {os.cpu_count()},"
          f" load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    if not args.no_sqlite:
        CACHE.mkdir(parents=True, exist_ok=True)
        db = Database(str(CACHE / f"exports-{tag}.db"), query_timeout=600)
        db.migrate()
        try:
            measure("SQLite", db, args.rows)
        finally:
            db.close()
    if not args.no_pg:
        db = Database(
            f"{args.pg}?schema=bench_exports_{tag[:40].replace('-', '_')}", query_timeout=600
        )
        db.migrate()
        try:
            measure("PostgreSQL", db, args.rows)
        finally:
            db.close()
    print(f"(load average after: {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
