"""ICM message counts between chain pairs, kept incrementally with the messenger events they
count (the metrics service's /v2/icm/summary and /v2/icm/timeseries read them, never the events).

Per chain the events were seen on, interval, bucket, source, destination and kind (`send` or
`receive`), the number of such events. A message counts once: at its send when its source is
an indexed chain, else (its source not indexed here) at its receive. The rows are added in the
transaction that writes their blocks (a replayed batch adds nothing twice) and taken away in
the unwind that removes them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store.buckets import DAY, HOUR, Interval, bucket_start
from snowfield.store.database import Database, Writer
from snowfield.store.icm_counts import EVENTS, KINDS, Key, apply, counted, keys
from snowfield.store.rows import BlockBundle
from snowfield.store.sql import in_list


def add_batch(w: Writer, chain_id: int, bundles: Sequence[BlockBundle]) -> None:
    """Counts the batch's sends and receives; call before the checkpoint moves (blocks at or
    below it were counted when first written)."""
    done = w.query("SELECT height FROM checkpoints WHERE chain_id = ?", (chain_id,))
    height = int(done[0][0]) if done else -1
    counts: Counter[Key] = Counter()
    for bundle in bundles:
        if bundle.block.number <= height:
            continue
        for e in bundle.icm:
            if e.kind in KINDS:
                counts.update(
                    keys(chain_id, e.block_timestamp, e.kind, e.peer_chain, e.destination_chain)
                )
    if counts:
        apply(w, counts, 1)


def unwind(w: Writer, chain_id: int, height: int) -> None:
    """Before the events of blocks >= height are deleted: takes their counts away."""
    rows = w.query(f"{EVENTS} AND chain_id = ? AND block_number >= ?", (*KINDS, chain_id, height))
    if rows:
        apply(w, counted(rows), -1)


# -- reads ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IcmQuery:
    """Which messages: of chains seen on `chains` (a network's), from `src`, to `dest`."""

    chains: Sequence[int]
    src: str | None = None
    dest: str | None = None
    by_src: bool = False
    by_dest: bool = False


Group = tuple[str, str]  # (src, dest), "" where not grouped


def _messages_sql(q: IcmQuery) -> tuple[str, list[Any]]:
    """(bucket, src, dest, messages) rows of the counted events, per the module's rule."""
    marks = in_list(q.chains)
    src = "CASE WHEN r.kind = 'send' THEN c.blockchain_id ELSE r.src END"
    sql = (
        f"SELECT r.span, r.bucket, {src} AS src, r.dest, r.messages FROM icm_rollups r"
        " JOIN chains c ON c.chain_id = r.chain_id"
        f" WHERE r.chain_id IN {marks} AND (r.kind = 'send' OR NOT EXISTS (SELECT 1 FROM chains"
        " s WHERE s.chain_id IS NOT NULL AND s.blockchain_id = r.src))"
    )
    return sql, list(q.chains)


def _filtered(
    q: IcmQuery, span: Interval, low: int | None, high: int | None
) -> tuple[str, list[Any]]:
    inner, bound = _messages_sql(q)
    sql = f"SELECT bucket, src, dest, messages FROM ({inner}) m WHERE span = ?"
    bound.append(span)
    for cond, value in (("src = ?", q.src), ("dest = ?", q.dest), ("bucket >= ?", low),
                        ("bucket <= ?", high)):  # fmt: skip
        if value is not None:
            sql += f" AND {cond}"
            bound.append(value)
    return sql, bound


def _group(q: IcmQuery, src: str, dest: str) -> Group:
    return (src if q.by_src else (q.src or "")), (dest if q.by_dest else (q.dest or ""))


def counts(
    db: Database, q: IcmQuery, span: Interval, low: int | None = None, high: int | None = None
) -> dict[tuple[int, Group], int]:
    """Messages per (bucket start, group) with buckets in [low, high]."""
    if not q.chains:
        return {}
    sql, bound = _filtered(q, span, low, high)
    out: Counter[tuple[int, Group]] = Counter()
    for bucket, src, dest, n in db.query(sql, bound):
        out[(int(bucket), _group(q, str(src or ""), str(dest)))] += int(n)
    return dict(out)


# Rolling windows: the buckets of `span` from the one holding now - length on.
WINDOWS: tuple[tuple[str, Interval, int | None], ...] = (
    ("lastHour", "hour", HOUR),
    ("lastDay", "hour", DAY),
    ("lastWeek", "day", 7 * DAY),
    ("lastMonth", "day", 30 * DAY),
    ("last90Days", "day", 90 * DAY),
    ("lastYear", "day", 365 * DAY),
    ("allTime", "month", None),
)


def windows(db: Database, q: IcmQuery, now: int) -> dict[str, int]:
    """The message count of each rolling window."""
    out: dict[str, int] = {}
    for name, span, length in WINDOWS:
        low = None if length is None else bucket_start(span, now - length)
        out[name] = sum(counts(db, q, span, low).values())
    return out
