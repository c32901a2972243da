"""Brute-force L1 validator fees, independent of store/l1_fees.py: from the stored blocks' times
and L1 events, every second of chain time is charged one at a time (the price after that
second's excess change, each active validator paying it up to its balance, deactivated at the
next block when it ran out) with the devnet state machine's price function, then summed per
calendar day and scope."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from snowfield.chains.platform.gas import calculate_price
from snowfield.store.database import Database

OPTIONS = {"BanffCommitBlock", "BanffAbortBlock", "ApricotCommitBlock", "ApricotAbortBlock"}
Key = tuple[str, str, int]  # scope, member, day


def _day(second: int) -> int:
    moment = dt.datetime.fromtimestamp(second, dt.UTC)
    return int(dt.datetime(moment.year, moment.month, moment.day, tzinfo=dt.UTC).timestamp())


def _config(db: Database, pchain: str) -> tuple[int, int, int]:
    row = db.query_one(
        "SELECT target, min_price, conversion FROM l1_fee_ledger WHERE pchain = ?", (pchain,)
    )
    assert row is not None, "no ledger"
    return int(row[0]), int(row[1]), int(row[2])


def _events(db: Database, pchain: str) -> dict[int, list[tuple[Any, ...]]]:
    out: dict[int, list[tuple[Any, ...]]] = {}
    for h, kind, v, s, n, amount in db.query(
        "SELECT height, kind, validation_id, subnet_id, node_id, amount FROM l1_fee_events"
        " WHERE pchain = ? ORDER BY height, seq",
        (pchain,),
    ):
        out.setdefault(int(h), []).append((str(kind), str(v), str(s), str(n), int(amount)))
    return out


def charges(db: Database, pchain: str) -> tuple[Counter[tuple[str, int]], dict[str, Any]]:
    """Fees per (validation, day) and the final balances, second by second."""
    target, min_price, k = _config(db, pchain)
    events = _events(db, pchain)
    balance: dict[str, int] = {}
    info: dict[str, tuple[str, str]] = {}
    paid: Counter[tuple[str, int]] = Counter()
    excess, time = 0, None
    for height, stamp, kind in db.query(
        "SELECT b.height, b.timestamp, d.block_type FROM p_blocks b LEFT JOIN p_block_details d"
        " ON d.pchain = b.pchain AND d.height = b.height WHERE b.pchain = ? ORDER BY b.height",
        (pchain,),
    ):
        if kind not in OPTIONS:
            stamp = int(stamp)
            active = [v for v, b in balance.items() if b > 0]
            if time is not None and not active:
                excess = max(excess - target * max(stamp - time, 0), 0)
            for second in range(time, stamp) if time is not None and active else ():
                if len(active) < target:
                    excess = max(excess - (target - len(active)), 0)
                else:
                    excess += len(active) - target
                price = calculate_price(min_price, excess, k)
                for v in active:
                    fee = min(balance[v], price)
                    balance[v] -= fee
                    if fee:
                        paid[(v, _day(second))] += fee
            time = stamp if time is None else max(time, stamp)
        for event, v, subnet, node, amount in events.get(int(height), ()):
            if event == "add":
                balance[v], info[v] = amount, (subnet, node)
            elif v in balance:
                balance[v] = balance[v] + amount if event == "topup" else 0
    return paid, {"balance": balance, "info": info}


def days(db: Database, pchain: str) -> dict[Key, tuple[int, int]]:
    """(scope, member, day) -> (fees, paying validations) for every day with a fee."""
    paid, state = charges(db, pchain)
    fees: Counter[Key] = Counter()
    payers: dict[Key, set[str]] = {}
    for (v, day), fee in paid.items():
        subnet, node = state["info"][v]
        for scope, member in (("validation", v), ("node", node), ("subnet", subnet), ("all", "")):
            fees[(scope, member, day)] += fee
            if scope != "node":
                payers.setdefault((scope, member, day), set()).add(v)
    return {key: (n, len(payers.get(key, ()))) for key, n in fees.items()}


def series(
    expected: dict[Key, tuple[int, int]], scope: str, member: str, kind: str, last_day: int
) -> list[tuple[int, int]]:
    """The metric's days newest first, from the member's first day with a fee to `last_day`."""
    mine = {day: v for (s, m, day), v in expected.items() if (s, m) == (scope, member)}
    if not mine:
        return []
    out, running, day = [], 0, min(mine)
    while day <= last_day:
        fees, payers = mine.get(day, (0, 0))
        running += fees
        out.append((day, running if kind == "cumulative" else payers if kind == "payers" else fees))
        day += 86_400
    return out[::-1]
