"""The L1 validator fee ledger (ACP-77's continuous fee) and its daily rollups, kept as the
P-Chain's blocks are written, in the same transaction.

The node does not say what a validator paid when; it says what the chain did: each block moves
the chain time, and every second of it each active L1 validator pays the price of the fee
state (l1_fee_math.py), capped at its balance; a validator whose balance runs out is
deactivated at that block (avalanchego's AdvanceTimeTo). The ledger replays exactly that from
the blocks' times and the L1 txs' balance changes (`l1_fee_events`), with the fee configuration
the node answers (platform.getValidatorFeeConfig), and adds each second's fee to its day.

`l1_fee_days` holds per (scope, member, day) the fees paid and, for the subnet and "all"
scopes, how many validations paid any: scope "validation" (member: validation id), "node"
(node id), "subnet" (subnet id), "all" (""). A cumulative series is the running sum of the
daily fees. `unwind` replays the ledger from the events it keeps up to a height."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from snowfield.store import l1_fee_math
from snowfield.store.buckets import DAY, bucket_start
from snowfield.store.l1_fee_math import FeeConfig
from snowfield.store.l1_fee_schema import TABLES as TABLES
from snowfield.store.primary_rows import L1Change, L1Event
from snowfield.store.sql import chunks, in_list

SCOPES = ("validation", "node", "subnet", "all")
OPTION_BLOCKS = ("BanffCommitBlock", "BanffAbortBlock", "ApricotCommitBlock", "ApricotAbortBlock")
# One block for the ledger: height, the chain time it moves to (None: an option block, which
# keeps its proposal's time), its L1 events in tx order.
Block = tuple[int, int | None, Sequence[L1Event]]
Charges = Counter[tuple[str, int]]  # (validation, day) -> nAVAX


def fee_event(change: L1Change) -> L1Event | None:
    """What an L1 validator tx's change does to the validation's fee balance (None: nothing,
    as a weight change that leaves the validator in place)."""
    if change.kind == "register":
        node, subnet = change.node_id or "", change.subnet_id or ""
        return L1Event("add", change.validation_id, subnet, node, change.balance or 0)
    if change.kind == "increase":
        return L1Event("topup", change.validation_id, amount=change.balance or 0)
    if change.kind == "disable":
        return L1Event("disable", change.validation_id)
    if change.kind == "weight" and change.weight == 0:
        return L1Event("remove", change.validation_id)
    return None


def fee_events(changes: Iterable[L1Change]) -> list[L1Event]:
    return [e for e in map(fee_event, changes) if e is not None]


@dataclass(slots=True)
class _Validation:
    """A validation as the replay holds it. Fees accrue lazily, as avalanchego accrues them:
    the ledger counts `accrued`, what one validator has paid since the batch began; an active
    validation runs out when `accrued` reaches its `end`, and its fees up to `mark` are
    attributed to days. So a block costs O(1), not O(active validators)."""

    subnet: str
    node: str
    balance: int  # as of `mark`
    end: int = 0  # the `accrued` at which it runs out (active ones)
    mark: int = 0  # the `accrued` up to which its fees went to their day


@dataclass(slots=True)
class _Ledger:
    height: int
    time: int | None
    excess: int
    config: FeeConfig
    balances: dict[str, _Validation]
    dirty: set[str] = field(default_factory=set)
    accrued: int = 0
    active: set[str] = field(default_factory=set)
    ends: list[tuple[int, str]] = field(default_factory=list)  # a heap of (end, validation)
    open_day: int = 0  # the day of the fees accrued since the last settlement


def advance(w: Any, pchain: str, blocks: Iterable[Block], config: FeeConfig | None) -> None:
    """Charges the fees up to each block's time and applies its events, in order; blocks at or
    below the ledger's height were applied before (a replayed batch charges nothing twice)."""
    ledger = _load(w, pchain, config)
    start = ledger.height
    charges: Charges = Counter()
    events: list[tuple[Any, ...]] = []
    for height, time, block_events in blocks:
        if height <= ledger.height:
            continue
        if time is not None:
            _charge(ledger, time, charges)
        for seq, event in enumerate(block_events):
            _apply(ledger, event, charges)
            events.append((pchain, height, seq, event.kind, event.validation_id,
                           event.subnet_id, event.node_id, event.amount))  # fmt: skip
        ledger.height = height
    if ledger.height == start:
        return
    for v in list(ledger.active):
        _settle(ledger, v, charges)
    w.executemany(
        "INSERT INTO l1_fee_events (pchain, height, seq, kind, validation_id, subnet_id,"
        " node_id, amount) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (pchain, height, seq) DO NOTHING",
        events,
    )
    _roll(w, pchain, ledger, charges)
    _save(w, pchain, ledger)


def _load(w: Any, pchain: str, config: FeeConfig | None) -> _Ledger:
    row = w.query(
        "SELECT height, chain_time, excess, capacity, target, min_price, conversion"
        " FROM l1_fee_ledger WHERE pchain = ?",
        (pchain,),
    )
    balances = {
        str(v): _Validation(str(s), str(n), int(b), int(b))
        for v, s, n, b in w.query(
            "SELECT validation_id, subnet_id, node_id, balance FROM l1_fee_balances"
            " WHERE pchain = ?",
            (pchain,),
        )
    }
    if not row:
        ledger = _Ledger(-1, None, 0, config or l1_fee_math.MAINNET, balances)
    else:
        height, time, excess, *stored = row[0]
        # The node's answer wins: a network upgrade may change the configuration.
        kept = config or FeeConfig(*(int(x) for x in stored))
        ledger = _Ledger(int(height), None if time is None else int(time), int(excess), kept,
                         balances)  # fmt: skip
    for v, state in balances.items():
        if state.balance > 0:
            _activate(ledger, v)
    return ledger


def _activate(ledger: _Ledger, v: str) -> None:
    ledger.active.add(v)
    heapq.heappush(ledger.ends, (ledger.balances[v].end, v))


def _settle(ledger: _Ledger, v: str, charges: Charges) -> None:
    """Attributes what `v` paid since its mark to the open day."""
    state = ledger.balances[v]
    upto = min(state.end, ledger.accrued)
    if upto > state.mark:
        charges[(v, ledger.open_day)] += upto - state.mark
        state.balance -= upto - state.mark
        state.mark = upto
        ledger.dirty.add(v)


def _charge(ledger: _Ledger, to: int, charges: Charges) -> None:
    """Every active validator pays each second from the ledger's time to `to`, by day; the
    set (and so the excess's drift) is the one of the interval's start, as on the node. Those
    whose balance ran out are deactivated at `to` (AdvanceTimeTo)."""
    if ledger.time is None or to <= ledger.time:
        ledger.time = to if ledger.time is None else ledger.time
        return
    config, at, current = ledger.config, ledger.time, len(ledger.active)
    if not current:
        ledger.excess = l1_fee_math.advance(config, 0, ledger.excess, to - at)
        at = to
    while at < to:
        day = bucket_start("day", at)
        stop = min(to, day + DAY)
        ledger.open_day = day
        ledger.accrued += l1_fee_math.cost_of(config, current, ledger.excess, stop - at)
        ledger.excess = l1_fee_math.advance(config, current, ledger.excess, stop - at)
        if stop == day + DAY:  # the day is over: its fees go to it
            for v in ledger.active:
                _settle(ledger, v, charges)
        at = stop
    ledger.time = to
    while ledger.ends and ledger.ends[0][0] <= ledger.accrued:
        end, v = heapq.heappop(ledger.ends)
        if v in ledger.active and ledger.balances[v].end == end:
            _deactivate(ledger, v, charges)


def _deactivate(ledger: _Ledger, v: str, charges: Charges) -> None:
    _settle(ledger, v, charges)
    state = ledger.balances[v]
    state.balance, state.end = 0, state.mark
    ledger.active.discard(v)
    ledger.dirty.add(v)


def _apply(ledger: _Ledger, event: L1Event, charges: Charges) -> None:
    v = event.validation_id
    known = ledger.balances.get(v)
    if event.kind == "add":
        ledger.balances[v] = _Validation(
            event.subnet_id, event.node_id, event.amount, ledger.accrued + event.amount,
            ledger.accrued,
        )  # fmt: skip
        if event.amount > 0:
            _activate(ledger, v)
    elif known is None:
        return  # a change to a validation the ledger never saw added (not indexed from genesis)
    elif event.kind == "topup":
        if v in ledger.active:
            known.end += event.amount
            known.balance += event.amount
            heapq.heappush(ledger.ends, (known.end, v))
        else:
            known.balance, known.mark = event.amount, ledger.accrued
            known.end = ledger.accrued + event.amount
            _activate(ledger, v)
    elif v in ledger.active:  # disable, remove: the rest is refunded
        _deactivate(ledger, v, charges)
    else:
        known.balance = 0
    ledger.dirty.add(v)


def _roll(w: Any, pchain: str, ledger: _Ledger, charges: Charges) -> None:
    """Adds the charges to the days of each scope; a validation's first charge of a day makes
    it one more paying validator of its subnet and of all."""
    if not charges:
        return
    seen = _charged_days(w, pchain, sorted({v for v, _ in charges}))
    fees: Counter[tuple[str, str, int]] = Counter()
    payers: Counter[tuple[str, str, int]] = Counter()
    for (v, day), paid in charges.items():
        info = ledger.balances[v]
        new = (v, day) not in seen
        for scope, member in zip(SCOPES, (v, info.node, info.subnet, ""), strict=True):
            fees[(scope, member, day)] += paid
            payers[(scope, member, day)] += int(new and scope in ("validation", "subnet", "all"))
    w.executemany(
        "INSERT INTO l1_fee_days (pchain, scope, member, day, fees, payers)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, scope, member, day) DO UPDATE SET"
        " fees = l1_fee_days.fees + excluded.fees, payers = l1_fee_days.payers + excluded.payers",
        [(pchain, *key, n, payers[key]) for key, n in sorted(fees.items())],
    )


def _charged_days(w: Any, pchain: str, validations: list[str]) -> set[tuple[str, int]]:
    out: set[tuple[str, int]] = set()
    for part in chunks(validations):
        rows = w.query(
            "SELECT member, day FROM l1_fee_days WHERE pchain = ? AND scope = 'validation'"
            f" AND member IN {in_list(part)}",
            (pchain, *part),
        )
        out |= {(str(m), int(d)) for m, d in rows}
    return out


def _save(w: Any, pchain: str, ledger: _Ledger) -> None:
    c = ledger.config
    w.execute(
        "INSERT INTO l1_fee_ledger (pchain, height, chain_time, excess, capacity, target,"
        " min_price, conversion) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pchain) DO UPDATE"
        " SET height = excluded.height, chain_time = excluded.chain_time,"
        " excess = excluded.excess, capacity = excluded.capacity, target = excluded.target,"
        " min_price = excluded.min_price, conversion = excluded.conversion",
        (pchain, ledger.height, ledger.time, str(ledger.excess), c.capacity, c.target,
         c.min_price, c.excess_conversion_constant),
    )  # fmt: skip
    w.executemany(
        "INSERT INTO l1_fee_balances (pchain, validation_id, subnet_id, node_id, balance)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (pchain, validation_id) DO UPDATE SET"
        " balance = excluded.balance",
        [
            (pchain, v, s.subnet, s.node, s.balance)
            for v, s in sorted(ledger.balances.items())
            if v in ledger.dirty
        ],
    )


L1_TX_TYPES = (
    "ConvertSubnetToL1Tx",
    "RegisterL1ValidatorTx",
    "IncreaseL1ValidatorBalanceTx",
    "DisableL1ValidatorTx",
    "SetL1ValidatorWeightTx",
)


def lag(db: Any, pchain: str, config: FeeConfig | None) -> int | None:
    """The first block height the ledger still has to be replayed from, or None when it is in
    step with the P-Chain's checkpoint: a store whose P-Chain was indexed before the ledger
    existed (schema 20). Its blocks before the first L1 tx change nothing (no validator pays),
    so the ledger starts just before it, or at the checkpoint when there is none."""
    done = db.query_one("SELECT height, timestamp FROM p_checkpoints WHERE pchain = ?", (pchain,))
    if done is None:
        return None
    row = db.query_one("SELECT height FROM l1_fee_ledger WHERE pchain = ?", (pchain,))
    if row is not None:
        return None if int(row[0]) >= int(done[0]) else int(row[0]) + 1
    first = db.query_one(
        f"SELECT MIN(height) FROM p_txs WHERE pchain = ? AND tx_type IN {in_list(L1_TX_TYPES)}",
        (pchain, *L1_TX_TYPES),
    )
    start = int(done[0]) + 1 if first is None or first[0] is None else int(first[0])
    before = db.query_one(
        "SELECT timestamp FROM p_blocks WHERE pchain = ? AND height < ?"
        " ORDER BY height DESC LIMIT 1",
        (pchain, start),
    )
    ledger = _Ledger(start - 1, None if before is None else int(before[0]), 0,
                     config or l1_fee_math.MAINNET, {})  # fmt: skip
    with db.transaction() as w:
        _save(w, pchain, ledger)
    return None if start > int(done[0]) else start


def unwind(w: Any, pchain: str, height: int, batch: int = 10_000) -> None:
    """Undoes the ledger past `height`: its later events go, and the rest is replayed from the
    stored blocks' times (the days, balances and fee state are derived, so they are rebuilt)."""
    row = w.query(
        "SELECT capacity, target, min_price, conversion FROM l1_fee_ledger WHERE pchain = ?",
        (pchain,),
    )
    config = FeeConfig(*(int(x) for x in row[0])) if row else None
    w.execute("DELETE FROM l1_fee_events WHERE pchain = ? AND height > ?", (pchain, height))
    events: dict[int, list[L1Event]] = {}
    for h, kind, v, s, n, amount in w.query(
        "SELECT height, kind, validation_id, subnet_id, node_id, amount FROM l1_fee_events"
        " WHERE pchain = ? ORDER BY height, seq",
        (pchain,),
    ):
        events.setdefault(int(h), []).append(
            L1Event(str(kind), str(v), str(s), str(n), int(amount))
        )
    for table in ("l1_fee_days", "l1_fee_balances", "l1_fee_ledger"):
        w.execute(f"DELETE FROM {table} WHERE pchain = ?", (pchain,))
    after = -1
    while True:
        rows = w.query(
            "SELECT b.height, b.timestamp, d.block_type FROM p_blocks b LEFT JOIN p_block_details d"
            " ON d.pchain = b.pchain AND d.height = b.height"
            " WHERE b.pchain = ? AND b.height > ? AND b.height <= ? ORDER BY b.height LIMIT ?",
            (pchain, after, height, batch),
        )
        if not rows:
            return
        blocks = [
            (int(h), None if kind in OPTION_BLOCKS else int(t), events.get(int(h), []))
            for h, t, kind in rows
        ]
        advance(w, pchain, blocks, config)
        after = int(rows[-1][0])


def known(db: Any, pchain: str, scope: str, member: str) -> bool:
    """Whether the ledger has a validation that `member` names (paid or not yet)."""
    column = {"validation": "validation_id", "node": "node_id", "subnet": "subnet_id"}[scope]
    row = db.query_one(
        f"SELECT 1 FROM l1_fee_balances WHERE pchain = ? AND {column} = ? LIMIT 1",
        (pchain, member),
    )
    return row is not None


def series(
    db: Any,
    pchain: str,
    scope: str,
    member: str,
    kind: str,
    last_day: int,
    *,
    start: int | None,
    end: int | None,
) -> list[tuple[int, int]]:
    """(day, value) newest first from the first day `member` paid to `last_day`, over the days
    that overlap [start, end]: kind "fees" (that day's), "cumulative" or "payers"."""
    where = "pchain = ? AND scope = ? AND member = ?"
    key = (pchain, scope, member)
    first = db.query_one(f"SELECT MIN(day) FROM l1_fee_days WHERE {where}", key)
    if first is None or first[0] is None:
        return []
    low, high = int(first[0]), last_day
    if start is not None:
        low = max(low, bucket_start("day", start))
    if end is not None:
        high = min(high, bucket_start("day", end))
    if high < low:
        return []
    column = "payers" if kind == "payers" else "fees"
    stored = {
        int(d): int(n)
        for d, n in db.query(
            f"SELECT day, {column} FROM l1_fee_days WHERE {where} AND day BETWEEN ? AND ?",
            (*key, low, high),
        )
    }
    running = 0
    if kind == "cumulative":
        base = db.query_one(
            f"SELECT SUM(fees) FROM l1_fee_days WHERE {where} AND day < ?", (*key, low)
        )
        running = 0 if base is None or base[0] is None else int(base[0])
    out: list[tuple[int, int]] = []
    for day in range(low, high + 1, DAY):
        value = stored.get(day, 0)
        running += value
        out.append((day, running if kind == "cumulative" else value))
    return out[::-1]
