"""Reads of the P-Chain's validators and delegators (their staking txs, the reward UTXOs they
were paid, who delegated to whom) for the validator, delegator, reward and network operations.

A staker's status is judged at the index's chain time: pending before its start, active until
its end, then completed (rewarded or not), or removed when a RemoveSubnetValidatorTx ended it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store import sql, validator_state
from snowfield.store.database import Database
from snowfield.store.primary_queries import Reads, chain_time
from snowfield.store.primary_schema import split_list
from snowfield.store.validator_state import Observation

PRIMARY_SUBNET = "11111111111111111111111111111111LpoYY"  # the primary network's subnet id


@dataclass(frozen=True, slots=True)
class StakerView:
    """A staker with its place in the chain and how it ended."""

    tx_id: str
    kind: str
    node_id: str
    subnet_id: str
    start: int
    end: int
    amount: int
    reward_addresses: tuple[str, ...]
    fee_addresses: tuple[str, ...]
    delegation_fee: int | None
    potential_reward: int | None
    ended_tx: str | None
    ended_type: str | None
    ended_time: int | None
    height: int
    tx_index: int
    status: str
    details: str  # the staking tx's type-specific fields (JSON), e.g. its BLS credentials


_STATUS = (
    "CASE WHEN e.tx_type = 'RemoveSubnetValidatorTx' THEN 'removed'"
    " WHEN s.ended_tx IS NOT NULL OR s.end_time <= {now} THEN 'completed'"
    " WHEN s.start_time > {now} THEN 'pending' ELSE 'active' END"
)
_SELECT = (
    "SELECT s.tx_id, s.kind, s.node_id, s.subnet_id, s.start_time, s.end_time, s.amount,"
    " s.reward_addresses, s.fee_addresses, s.delegation_fee, s.potential_reward, s.ended_tx,"
    " e.tx_type, e.timestamp, t.height, t.tx_index, {status}, t.details"
    " FROM p_stakers s JOIN p_txs t ON t.pchain = s.pchain AND t.tx_id = s.tx_id"
    " LEFT JOIN p_txs e ON e.pchain = s.pchain AND e.tx_id = s.ended_tx"
)


def _view(r: Sequence[Any]) -> StakerView:
    # Both drivers give the id, kind and time columns their Python types already; the amounts
    # are text (uint64) and the lists comma-joined. Per row of every validator page (the
    # conversions were a fifth of a page's store time, bench/primary_validators.py).
    reward = r[10]
    ended = r[13]
    return StakerView(
        r[0], r[1], r[2], r[3], r[4], r[5], int(r[6]), split_list(r[7]), split_list(r[8]),
        r[9], None if reward is None else int(reward), r[11], r[12],
        None if ended is None else int(ended), r[14], r[15], r[16], r[17],
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class StakerFilter:
    kinds: tuple[str, ...]
    subnet_id: str | None = None
    node_ids: tuple[str, ...] | None = None
    statuses: tuple[str, ...] | None = None
    owners: tuple[str, ...] | None = None  # reward-owner addresses (delegators)
    min_fee: int | None = None  # millionths
    max_fee: int | None = None
    min_end: int | None = None  # unix
    max_end: int | None = None
    tx_ids: tuple[str, ...] | None = None  # these staking txs only


def listing(
    f: StakerFilter,
    now: int,
    *,
    desc: bool,
    after: tuple[int, str] | None,
    limit: int | None,
) -> tuple[str, list[Any]]:
    """The WHERE, ORDER BY and LIMIT of a listing of stakers `s` by (start time, tx id) (the
    chain's order since Durango, where a staker starts at its block's time), with its
    parameters; the status is judged at `now` (its expression joins the ending tx as `e`)."""
    status = _STATUS.format(now=int(now))  # the time inlined: the status is one expression
    where = ["s.pchain = ?"]
    params: list[Any] = []
    if len(f.kinds) == 1 and f.subnet_id is not None and not f.owners and not f.node_ids:
        # One kind on one subnet: a range of p_stakers_by_role, in order (its expression).
        # Not by owner or node: their own ranges are smaller than the whole role's.
        where.append("(s.subnet_id || ':' || s.kind) = ?")
        params.append(f"{f.subnet_id}:{f.kinds[0]}")
    else:
        where.append(f"s.kind IN {sql.in_list(f.kinds)}")
        params += list(f.kinds)
        if f.subnet_id is not None:
            where.append("s.subnet_id = ?")
            params.append(f.subnet_id)
    for column, values in (("s.node_id", f.node_ids), ("s.tx_id", f.tx_ids)):
        if values:
            where.append(f"{column} IN {sql.in_list(values)}")
            params += list(values)
    if f.statuses:
        where.append(f"{status} IN {sql.in_list(f.statuses)}")
        params += list(f.statuses)
    if f.owners:
        where.append(
            "s.tx_id IN (SELECT o.tx_id FROM p_staker_owners o WHERE o.pchain = s.pchain"
            f" AND o.address IN {sql.in_list(f.owners)})"
        )
        params += list(f.owners)
    for clause, value in (
        ("s.delegation_fee >= ?", f.min_fee),
        ("s.delegation_fee <= ?", f.max_fee),
        ("s.end_time >= ?", f.min_end),
        ("s.end_time <= ?", f.max_end),
    ):
        if value is not None:
            where.append(clause)
            params.append(value)
    op, order = ("<", "DESC") if desc else (">", "ASC")
    if after is not None:
        where.append(f"(s.start_time, s.tx_id) {op} (?, ?)")
        params += list(after)
    text = " WHERE " + " AND ".join(where)
    text += f" ORDER BY s.start_time {order}, s.tx_id {order}"
    if limit is not None:
        text += " LIMIT ?"
        params.append(limit)
    return text, params


def stakers(
    db: Reads,
    pchain: str,
    f: StakerFilter,
    *,
    desc: bool,
    after: tuple[int, str] | None,
    limit: int | None,
) -> tuple[int, list[StakerView]]:
    """(chain time, stakers by (start time, tx id)); `limit` None: every one that matches
    (fetch limit + 1 for a page)."""
    now = chain_time(db, pchain) or 0
    tail, params = listing(f, now, desc=desc, after=after, limit=limit)
    text = _SELECT.format(status=_STATUS.format(now=int(now))) + tail
    return int(now), [_view(r) for r in db.query(text, [pchain, *params])]


@dataclass(frozen=True, slots=True)
class Delegation:
    tx_id: str
    node_id: str
    subnet_id: str
    start: int
    end: int
    amount: int
    potential_reward: int | None
    ended_tx: str | None


def delegations_to(db: Reads, pchain: str, node_ids: Sequence[str]) -> list[Delegation]:
    """Every delegation to these nodes (matched to a validation by its period)."""
    out: list[Delegation] = []
    for chunk in sql.chunks(sorted(set(node_ids))):
        for r in db.query(
            "SELECT tx_id, node_id, subnet_id, start_time, end_time, amount, potential_reward,"
            " ended_tx FROM p_stakers WHERE pchain = ? AND kind = 'DELEGATOR'"
            f" AND node_id IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        ):
            reward = None if r[6] is None else int(r[6])
            out.append(Delegation(r[0], r[1], r[2], int(r[3]), int(r[4]), int(r[5]), reward, r[7]))
    return out


@dataclass(frozen=True, slots=True)
class RewardUtxo:
    utxo_id: str
    tx_id: str  # the staking tx it rewards
    output_index: int
    asset_id: str
    amount: int
    addresses: tuple[str, ...]
    reward_type: str
    height: int
    timestamp: int


_REWARD_COLUMNS = (
    "u.utxo_id, u.tx_id, u.output_index, u.asset_id, u.amount, u.addresses, u.reward_type,"
    " u.block_height, u.block_timestamp"
)


def _reward(r: Sequence[Any]) -> RewardUtxo:
    return RewardUtxo(
        r[0], r[1], int(r[2]), r[3], int(r[4]), split_list(r[5]), r[6], int(r[7] or 0),
        int(r[8] or 0),
    )  # fmt: skip


def rewards_of(db: Reads, pchain: str, tx_ids: Sequence[str]) -> dict[str, list[RewardUtxo]]:
    """The reward UTXOs each staking tx was paid."""
    out: dict[str, list[RewardUtxo]] = {t: [] for t in tx_ids}
    for chunk in sql.chunks(list(tx_ids)):
        for r in db.query(
            f"SELECT {_REWARD_COLUMNS} FROM p_utxos u WHERE u.pchain = ?"
            f" AND u.tx_id IN {sql.in_list(chunk)} AND u.reward_type IS NOT NULL"
            " ORDER BY u.output_index",
            [pchain, *chunk],
        ):
            out[str(r[1])].append(_reward(r))
    return out


def paid_rewards(
    db: Database,
    pchain: str,
    *,
    owners: Sequence[str] | None,
    node_ids: Sequence[str] | None,
    desc: bool,
    after: tuple[int, str] | None,
    limit: int,
) -> list[tuple[RewardUtxo, StakerView]]:
    """Reward UTXOs paid (newest first or oldest), of stakers owned by `owners` or staking
    on `node_ids`, with their stakers; up to `limit` (ask limit + 1 for a page)."""
    where = ["u.pchain = ?", "u.reward_type IS NOT NULL"]
    params: list[Any] = [pchain]
    if owners:
        where.append(
            "u.tx_id IN (SELECT o.tx_id FROM p_staker_owners o WHERE o.pchain = u.pchain"
            f" AND o.address IN {sql.in_list(owners)})"
        )
        params += list(owners)
    if node_ids:
        # As a list of staking txs (the node's range of p_stakers_by_node), so that the reward
        # UTXOs are found by tx, not by walking every UTXO of the chain.
        where.append(
            "u.tx_id IN (SELECT n.tx_id FROM p_stakers n WHERE n.pchain = u.pchain"
            f" AND n.node_id IN {sql.in_list(node_ids)})"
        )
        params += list(node_ids)
    op, order = ("<", "DESC") if desc else (">", "ASC")
    if after is not None:
        where.append(f"(u.block_height, u.utxo_id) {op} (?, ?)")
        params += list(after)
    status = _STATUS.format(now=0)
    text = (
        f"SELECT {_REWARD_COLUMNS}, "
        + _SELECT.format(status=status).removeprefix("SELECT ")
        + " JOIN p_utxos u ON u.pchain = s.pchain AND u.tx_id = s.tx_id"
        + " WHERE "
        + " AND ".join(where)
        + f" ORDER BY u.block_height {order}, u.utxo_id {order} LIMIT ?"
    )
    rows = db.query(text, [*params, limit])
    return [(_reward(r[:9]), _view(r[9:])) for r in rows]


@dataclass(frozen=True, slots=True)
class StakeTotals:
    validators: int
    validator_stake: int
    delegators: int
    delegator_stake: int
    potential_rewards: int


def current_totals(db: Database, pchain: str) -> tuple[StakeTotals, list[StakerView]]:
    """The primary network's active stake, and its active validators."""
    _, current = stakers(
        db,
        pchain,
        StakerFilter(("VALIDATOR", "DELEGATOR"), PRIMARY_SUBNET, statuses=("active",)),
        desc=False,
        after=None,
        limit=None,
    )
    validators = [s for s in current if s.kind == "VALIDATOR"]
    delegators = [s for s in current if s.kind == "DELEGATOR"]
    totals = StakeTotals(
        len(validators),
        sum(s.amount for s in validators),
        len(delegators),
        sum(s.amount for s in delegators),
        sum(s.potential_reward or 0 for s in current),
    )
    return totals, validators


@dataclass(frozen=True, slots=True)
class Measured:
    """Stakers with what their entries derive from, read in one call (one thread hop a
    request: each hop costs the event loop a GIL hand-over)."""

    now: int
    stakers: list[StakerView]
    delegations: list[Delegation]
    rewards: dict[str, list[RewardUtxo]]
    observations: dict[str, Observation]
    current_stake: int  # the primary network's, as the node last reported it


def measured(
    db: Reads,
    pchain: str,
    f: StakerFilter,
    *,
    desc: bool,
    after: tuple[int, str] | None,
    limit: int | None,
) -> Measured:
    now, views = stakers(db, pchain, f, desc=desc, after=after, limit=limit)
    # Each read only for the stakers whose entries show it: the paid rewards of the ended
    # ones, the node's observation and the current stake for the active ones.
    ended = [v.tx_id for v in views if v.status == "completed"]
    active = [v.tx_id for v in views if v.status == "active"]
    supplied = validator_state.supply(db, pchain) if active else None
    paid = rewards_of(db, pchain, ended)
    return Measured(
        now,
        views,
        delegations_to(db, pchain, [v.node_id for v in views if v.status != "pending"]),
        {v.tx_id: paid.get(v.tx_id, []) for v in views},
        validator_state.observations(db, pchain, active),
        0 if supplied is None else supplied[1],
    )
