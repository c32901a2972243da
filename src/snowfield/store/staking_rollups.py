"""Staking metrics of the primary-network index (validator and delegator count and weight per
subnet and day), kept incrementally as the P-Chain's stakers are written.

A staker counts on day D when it is staking at D's last second: its start is at or before it
and its end (or its removal, for a subnet validator removed early) after it. Each staker adds
its count and weight on the day it starts and takes them away on the day it ends, so a day's
value is the running sum of the deltas up to it (the P-Chain is final: nothing unwinds)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from snowfield.store.buckets import DAY, bucket_start
from snowfield.store.sql import chunks, in_list

TABLE = """CREATE TABLE IF NOT EXISTS staking_deltas (
    pchain TEXT NOT NULL,
    subnet_id TEXT NOT NULL,
    day BIGINT NOT NULL,
    metric TEXT NOT NULL,
    delta BIGINT NOT NULL,
    PRIMARY KEY (pchain, subnet_id, metric, day))"""
METRICS = ("validatorCount", "validatorWeight", "delegatorCount", "delegatorWeight")
# One staker's row: kind, subnet, start, end, amount.
Staker = tuple[str, str, int, int, int]
Key = tuple[str, str, int, str]  # pchain, subnet, day, metric


def _deltas(pchain: str, stakers: Iterable[Staker], sign: int = 1) -> Counter[Key]:
    out: Counter[Key] = Counter()
    for kind, subnet, start, end, amount in stakers:
        side = "delegator" if kind == "DELEGATOR" else "validator"
        for at, s in ((start, sign), (end, -sign)):
            day = bucket_start("day", at)
            out[(pchain, subnet, day, f"{side}Count")] += s
            out[(pchain, subnet, day, f"{side}Weight")] += s * amount
    return out


def _apply(w: Any, deltas: Counter[Key]) -> None:
    w.executemany(
        "INSERT INTO staking_deltas (pchain, subnet_id, day, metric, delta) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (pchain, subnet_id, metric, day)"
        " DO UPDATE SET delta = staking_deltas.delta + excluded.delta",
        [(*k, n) for k, n in sorted(deltas.items()) if n],
    )


def add(w: Any, pchain: str, stakers: Sequence[Staker], tx_ids: Sequence[str]) -> None:
    """Before the stakers' rows are inserted: counts those not written before (a replayed
    block adds nothing twice)."""
    known: set[str] = set()
    for part in chunks(list(tx_ids)):
        rows = w.query(
            f"SELECT tx_id FROM p_stakers WHERE pchain = ? AND tx_id IN {in_list(part)}",
            (pchain, *part),
        )
        known |= {str(r[0]) for r in rows}
    fresh = [s for s, t in zip(stakers, tx_ids, strict=True) if t not in known]
    if fresh:
        _apply(w, _deltas(pchain, fresh))


def remove(w: Any, pchain: str, tx_ids: Sequence[str], at: int) -> None:
    """Stakers removed at `at` before their end (their ended_tx not yet set): they stop
    counting from `at`'s day, not their end's."""
    stakers: list[Staker] = []
    for part in chunks(list(tx_ids)):
        for kind, subnet, _start, end, amount in w.query(
            "SELECT kind, subnet_id, start_time, end_time, amount FROM p_stakers"
            f" WHERE pchain = ? AND ended_tx IS NULL AND tx_id IN {in_list(part)}",
            (pchain, *part),
        ):
            if int(end) > at:  # the delta on its end day moves to the removal's day
                stakers.append((str(kind), str(subnet), at, int(end), int(amount)))
    if stakers:
        _apply(w, _deltas(pchain, stakers, sign=-1))


def rebuild(w: Any) -> None:
    """Counts every stored staker again (an upgrade): it stops at its end time, or at the
    time of the tx that ended it when that came first (a removal)."""
    w.execute("DELETE FROM staking_deltas")
    rows = w.query(
        "SELECT s.pchain, s.kind, s.subnet_id, s.start_time, s.end_time, s.amount, t.timestamp"
        " FROM p_stakers s LEFT JOIN p_txs t ON t.pchain = s.pchain AND t.tx_id = s.ended_tx"
    )
    total: Counter[Key] = Counter()
    for pchain, kind, subnet, start, end, amount, removed in rows:
        stop = int(end) if removed is None else min(int(end), int(removed))
        # update, not +=: a Counter sum drops the negative deltas
        total.update(
            _deltas(str(pchain), [(str(kind), str(subnet), int(start), stop, int(amount))])
        )
    _apply(w, total)


def series(
    db: Any,
    pchain: str,
    subnet: str,
    metric: str,
    last_day: int,
    *,
    start: int | None,
    end: int | None,
    below: int | None,
    limit: int,
) -> tuple[list[tuple[int, int]], bool]:
    """(day, value) newest first, from the first day with a delta to `last_day`, over days
    that overlap [start, end] and begin before `below`; and whether older days remain."""
    where = "pchain = ? AND subnet_id = ? AND metric = ?"
    first = db.query_one(
        f"SELECT MIN(day) FROM staking_deltas WHERE {where}", (pchain, subnet, metric)
    )
    if first is None or first[0] is None:
        return [], False
    low, high = int(first[0]), last_day
    if start is not None:
        low = max(low, bucket_start("day", start))
    if end is not None:
        high = min(high, bucket_start("day", end))
    if below is not None:
        high = min(high, below - DAY)
    days = list(range(high, low - 1, -DAY))[: limit + 1]
    if not days:
        return [], False
    oldest = days[-1]
    base = db.query_one(
        f"SELECT SUM(delta) FROM staking_deltas WHERE {where} AND day < ?",
        (pchain, subnet, metric, oldest),
    )
    running = 0 if base is None or base[0] is None else int(base[0])
    deltas = {
        int(d): int(n)
        for d, n in db.query(
            f"SELECT day, delta FROM staking_deltas WHERE {where} AND day BETWEEN ? AND ?",
            (pchain, subnet, metric, oldest, days[0]),
        )
    }
    values: dict[int, int] = {}
    for day in reversed(days):
        running += deltas.get(day, 0)
        values[day] = running
    return [(d, values[d]) for d in days[:limit]], len(days) > limit
