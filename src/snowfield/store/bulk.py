"""Inserts of a batch's many rows that skip (or update) rows already stored, as one statement
would: `INSERT ... ON CONFLICT` row by row on SQLite; on PostgreSQL COPY into the table, and
where a row conflicts (a batch written again, a parallel backfill's ranges) COPY into a staging
table of the session instead, then one `INSERT ... SELECT ... ON CONFLICT` from it.

Why COPY: row by row (psycopg's pipelined executemany) the writer loaded about 1,300
transactions/s of bench/scale.py's rows (profiled), three quarters of the time in executemany:
~200,000 statements a batch of 20,000 transactions, each bound, sent, planned and answered on
its own. COPY sends the rows as one stream, with no statement per row. A COPY straight into the
table, in a savepoint, stores what the row-by-row statement would when no row conflicts, and is
rolled back when one does (a unique violation); the staging table then keeps every conflict
rule of the row-by-row statement: its rows reach the table in one INSERT with the same ON
CONFLICT clause. Straight in is the usual case and the cheaper: 100,000 address_txs rows took
2.4 s against 3.2 s through the staging table (4 alternating runs each, loaded 2-core machine).

One statement sees no earlier row of itself as a conflict the way consecutive statements do,
so rows sharing a key are settled here first: with DO NOTHING the first of them is kept (what
the row-by-row inserts kept); with DO UPDATE, whose outcome depends on order, a batch with a
repeated key is written row by row as before."""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Sequence
from typing import Any

from snowfield.store.database import Writer


def insert(
    w: Writer,
    table: str,
    columns: str,
    rows: Sequence[Sequence[Any]],
    *,
    key: str,
    update: str | None = None,
) -> None:
    """`INSERT INTO table (columns) VALUES ... ON CONFLICT (key) DO NOTHING` of every row, or
    `DO UPDATE SET ...` with `update` (the text after DO UPDATE, naming `excluded` and the
    table as a row-by-row statement would)."""
    if not rows:
        return
    names = [c.strip() for c in columns.split(",")]
    conflict = f" ON CONFLICT ({key}) {'DO NOTHING' if update is None else update}"
    row_by_row = (
        f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' for _ in names)}){conflict}"
    )
    if w.dialect == "sqlite":
        w.executemany(row_by_row, rows)
        return
    # Every row new: the usual case of DO NOTHING tables (an update's table, which keeps the
    # current row of a key, mostly conflicts).
    if update is None and w.copy_new(table, columns, rows):
        return
    distinct = _first_per_key(rows, [names.index(k.strip()) for k in key.split(",")])
    if update is not None and len(distinct) < len(rows):
        w.executemany(row_by_row, rows)
        return
    stage = _stage(w, table, columns)
    w.copy(f"COPY {stage} ({columns}) FROM STDIN", distinct)
    w.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {stage}{conflict}")
    w.execute(f"TRUNCATE {stage}")  # a second batch in this transaction starts empty


def _first_per_key(rows: Sequence[Sequence[Any]], positions: Sequence[int]) -> list[Any]:
    """The rows, each key's first only (usually all of them)."""
    key = operator.itemgetter(*positions)
    seen: dict[Any, Sequence[Any]] = {}
    for row in rows:
        seen.setdefault(key(row), row)
    return list(seen.values()) if len(seen) < len(rows) else list(rows)


def _stage(w: Writer, table: str, columns: str) -> str:
    """The session's staging table for these columns of `table`: a temporary table emptied at
    every commit (and by `insert`), created on first use. Its name carries the column list, so
    a table that gained columns (an upgrade) gets a staging table of its new shape. Defaults
    included: a column left out (NOT NULL with a default) must not fail in the staging table."""
    digest = hashlib.blake2b(columns.encode(), digest_size=4).hexdigest()
    stage = f"pg_temp.stage_{table}_{digest}"
    w.execute(
        f"CREATE TEMPORARY TABLE IF NOT EXISTS {stage.removeprefix('pg_temp.')}"
        f" (LIKE {table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
    )
    return stage
