"""Claimed block ranges: several `snowfield index` processes split one chain's backfill through
PostgreSQL alone.

A plan cuts checkpoint+1..head into ranges (`backfill_ranges`, one row each, plus one open-ended
row for the tip). A worker claims a range by taking a session-level advisory lock named after it
on a connection of its own: the lock lives exactly as long as that connection, so a `kill -9`
of the worker frees its range at once, and the next worker resumes it from `next_block`, which
moves in the same transaction as each batch's rows (the rows are upserts by natural key: a
batch written twice leaves the rows of one). The chain's checkpoint stays what it always was —
every block up to it is written — and moves to the end of the longest finished prefix."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from snowfield.errors import Unsupported
from snowfield.store import rollups as rollup_tables
from snowfield.store.database import Database, Writer, advisory_key
from snowfield.store.rollups import Rollups

_UNFINISHED = "(end_block IS NULL OR next_block <= end_block)"


@dataclass(frozen=True, slots=True)
class Claim:
    chain_id: int
    start: int
    end: int
    next: int
    key: int  # the advisory lock held for it


def lock_key(schema: str | None, chain_id: int, start: int | None) -> int:
    """A signed 64-bit advisory lock key per (store, chain, range start); None names the tip.
    PostgreSQL's advisory locks are the whole database's, so the store's schema is part of the
    name: two stores in schemas of one database (`?schema=`) must not take each other's
    ranges or tip for their own."""
    return advisory_key(
        f"snowfield-backfill:{schema or ''}:{chain_id}:{'tip' if start is None else start}"
    )


def require_postgresql(db: Database) -> None:
    if db.dialect != "postgresql":
        raise Unsupported("a parallel backfill coordinates through PostgreSQL: use a postgresql://")


def plan(db: Database, chain_id: int, first: int, last: int, size: int) -> bool:
    """Cuts first..last into ranges of `size` blocks plus the tip's row, unless the chain has a
    plan already; True when this call made it. Ranges start at multiples of `size` from
    `first`, so batches of a size dividing it fall where one process's would."""
    with db.transaction() as w:
        # One planner at a time; the others then see its rows.
        w.execute("SELECT pg_advisory_xact_lock(?)", (lock_key(db.url.schema, chain_id, -1),))
        if w.query("SELECT 1 FROM backfill_ranges WHERE chain_id = ? LIMIT 1", (chain_id,)):
            return False
        rows: list[tuple[Any, ...]] = [
            (chain_id, s, min(s + size - 1, last), s) for s in range(first, last + 1, size)
        ]
        rows.append((chain_id, max(first, last + 1), None, max(first, last + 1)))
        w.executemany(
            "INSERT INTO backfill_ranges (chain_id, start_block, end_block, next_block)"
            " VALUES (?, ?, ?, ?)",
            rows,
        )
        return True


def ranges(db: Database, chain_id: int) -> list[tuple[int, int | None, int]]:
    """(start, end, next) of every range of the chain's plan, in block order."""
    rows = db.query(
        "SELECT start_block, end_block, next_block FROM backfill_ranges WHERE chain_id = ?"
        " ORDER BY start_block",
        (chain_id,),
    )
    return [(int(s), None if e is None else int(e), int(n)) for s, e, n in rows]


def backfill_done(db: Database, chain_id: int) -> bool:
    """Every bounded range of the plan is written (or there is no plan)."""
    return not db.query_one(
        "SELECT 1 FROM backfill_ranges WHERE chain_id = ? AND end_block IS NOT NULL"
        " AND next_block <= end_block LIMIT 1",
        (chain_id,),
    )


class Claims:
    """Claims held by one worker, on a connection of its own (its advisory locks die with it).
    Used from one thread at a time."""

    def __init__(self, db: Database) -> None:
        require_postgresql(db)
        self._conn = db.session()
        self._schema = db.url.schema

    def claim(self, chain_id: int) -> Claim | None:
        """The lowest unfinished bounded range no other worker holds, now held by this one."""
        rows = self._conn.execute(
            "SELECT start_block, end_block, next_block FROM backfill_ranges"
            " WHERE chain_id = %s AND end_block IS NOT NULL AND next_block <= end_block"
            " ORDER BY start_block",
            (chain_id,),
        ).fetchall()
        for start, end, _ in rows:
            if (claim := self._take(chain_id, int(start), int(end))) is not None:
                return claim
        return None

    def lead(self, chain_id: int) -> bool:
        """Whether this worker follows the chain's head: the one holding its follower lock,
        held until the connection closes (a standby takes over when the follower dies)."""
        key = lock_key(self._schema, chain_id, None)
        return bool(self._conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0])

    def _take(self, chain_id: int, start: int, end: int) -> Claim | None:
        key = lock_key(self._schema, chain_id, start)
        if not self._conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
            return None
        # Read again under the lock: the holder before may have finished it meanwhile.
        row = self._conn.execute(
            "SELECT next_block FROM backfill_ranges WHERE chain_id = %s AND start_block = %s"
            f" AND {_UNFINISHED}",
            (chain_id, start),
        ).fetchone()
        if row is None:
            self._conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            return None
        return Claim(chain_id, start, end, int(row[0]), key)

    def release(self, claim: Claim) -> None:
        self._conn.execute("SELECT pg_advisory_unlock(%s)", (claim.key,))

    def close(self) -> None:
        # The server drops a closed session's locks only once it has processed the disconnect,
        # after close() returns: a clean close lets them go first, so another worker can claim
        # at once. (A killed worker's locks go when its session dies.)
        with contextlib.suppress(Exception):
            self._conn.execute("SELECT pg_advisory_unlock_all()")
        self._conn.close()


def tip_start(db: Database, chain_id: int) -> int | None:
    """The start of the tip's row while the chain has a plan (None: none)."""
    row = db.query_one(
        "SELECT start_block FROM backfill_ranges WHERE chain_id = ? AND end_block IS NULL",
        (chain_id,),
    )
    return None if row is None else int(row[0])


def next_block(db: Database, chain_id: int, start: int) -> int | None:
    row = db.query_one(
        "SELECT next_block FROM backfill_ranges WHERE chain_id = ? AND start_block = ?",
        (chain_id, start),
    )
    return None if row is None else int(row[0])


def advance(w: Writer, chain_id: int, start: int, last: int) -> None:
    """In a batch's transaction: the range of `start` is written up to `last`, and the chain's
    checkpoint moves to the end of the longest written prefix of the plan."""
    w.execute(
        "UPDATE backfill_ranges SET next_block = ? WHERE chain_id = ? AND start_block = ?",
        (last + 1, chain_id, start),
    )
    # Serialised per chain: two batches committing at once would each miss the other's range.
    w.execute("SELECT pg_advisory_xact_lock(?)", (lock_key(w.schema, chain_id, -2),))
    row = w.query(
        "SELECT next_block FROM backfill_ranges WHERE chain_id = ?"
        f" AND {_UNFINISHED} ORDER BY start_block LIMIT 1",
        (chain_id,),
    )
    if row:
        height = int(row[0][0]) - 1
    else:
        top = w.query("SELECT MAX(end_block) FROM backfill_ranges WHERE chain_id = ?", (chain_id,))
        height = int(top[0][0])
    old = w.query("SELECT height FROM checkpoints WHERE chain_id = ?", (chain_id,))
    below = int(old[0][0]) if old else -1
    if height <= below:
        return
    _count_transactions(w, chain_id, below, height)
    block = w.query(
        "SELECT number, hash FROM blocks WHERE chain_id = ? AND number = ?", (chain_id, height)
    )
    w.execute(
        "INSERT INTO checkpoints (chain_id, height, hash) VALUES (?, ?, ?)"
        " ON CONFLICT (chain_id) DO UPDATE SET height = excluded.height, hash = excluded.hash",
        (chain_id, *block[0]),
    )


def _count_transactions(w: Writer, chain_id: int, below: int, height: int) -> None:
    """`cumulative_txs` of blocks below+1..height, now that every block before them is written:
    a range written before the one under it counted from 0 (its parent was not there)."""
    base = w.query(
        "SELECT cumulative_txs FROM blocks WHERE chain_id = ? AND number = ?", (chain_id, below)
    )
    w.execute(
        "UPDATE blocks SET cumulative_txs = r.total FROM (SELECT number,"
        " SUM(tx_count) OVER (ORDER BY number) + ? AS total FROM blocks"
        " WHERE chain_id = ? AND number > ? AND number <= ?) r"
        " WHERE blocks.chain_id = ? AND blocks.number = r.number"
        " AND blocks.cumulative_txs <> r.total",
        (int(base[0][0]) if base else 0, chain_id, below, height, chain_id),
    )


def unwind(w: Writer, chain_id: int, height: int) -> None:
    """Blocks >= height are being removed: every range is to be written again from there."""
    w.execute(
        "UPDATE backfill_ranges SET next_block = CASE WHEN start_block > ? THEN start_block"
        " ELSE ? END WHERE chain_id = ? AND next_block > ?",
        (height, height, chain_id, height),
    )


def finish(db: Database, chain_id: int, rollups: Rollups | None, now: int) -> bool:
    """Once every bounded range is written: the plan's rows go and, with `rollups`, the metrics
    rollups of the planned blocks are built in block order (the workers write none: a bucket's
    first sightings and rates depend on the order blocks arrive in). True when it finished."""
    with db.transaction() as w:
        w.execute("SELECT pg_advisory_xact_lock(?)", (lock_key(db.url.schema, chain_id, -1),))
        first = w.query(
            "SELECT MIN(start_block) FROM backfill_ranges WHERE chain_id = ?", (chain_id,)
        )
        if first[0][0] is None or w.query(
            "SELECT 1 FROM backfill_ranges WHERE chain_id = ? AND end_block IS NOT NULL"
            " AND next_block <= end_block LIMIT 1",
            (chain_id,),
        ):
            return False
        if rollups is not None:
            since = rollup_tables.forget_from(w, chain_id, int(first[0][0]))
            if since is not None:
                rollup_tables.rebuild(w, chain_id, since, rollups, now)
        w.execute("DELETE FROM backfill_ranges WHERE chain_id = ?", (chain_id,))
        return True
