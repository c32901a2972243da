"""A validation's entry in the validators list (GET /v1/networks/{network}/validators), rendered
from what store/validator_queries.py measures: its staking tx, its delegations, its paid
rewards and the node's last observation of it. Here rather than in the API so that the writer
renders the same entries into p_validator_documents (store/validator_documents.py).

An entry depends on the chain time only through comparisons with its own start and end and its
delegations' (`window`): between two of those instants, with the same rows and observation,
it renders to the same bytes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from snowfield.store.validator_queries import Delegation, Measured, RewardUtxo, StakerView
from snowfield.store.validator_state import Observation

Json = dict[str, Any]
PERCENT = 1_000_000  # delegation fees are in millionths
# avalanchego's staking parameters on mainnet, Fuji and local networks (genesis configs):
# a validator's stake with its delegations is at most 5 times its own and 3M AVAX.
MAX_VALIDATOR_STAKE = 3_000_000 * 10**9
MAX_WEIGHT_FACTOR = 5
FOREVER = 2**62  # a window's end when no instant to come changes the entry


def percent_text(shares: int) -> str:
    """Millionths as the data API's percent string (20000 → "2")."""
    whole, rest = divmod(shares, 10_000)
    return str(whole) if rest == 0 else f"{whole}.{rest:04d}".rstrip("0")


@dataclass(frozen=True, slots=True)
class Figures:
    """What a validator's entry derives from its delegations and the node's observation."""

    delegators: int
    delegated: int
    delegation_reward: int  # its fee share of its delegators' (potential or paid) rewards
    capacity: int | None
    uptime: float
    observation: Observation | None


def _in_period(v: StakerView, all_: Sequence[Delegation]) -> list[Delegation]:
    return [
        d for d in all_
        if d.node_id == v.node_id and d.subnet_id == v.subnet_id and v.start <= d.start
        and d.end <= v.end
    ]  # fmt: skip


def _delegations(v: StakerView, all_: Sequence[Delegation], now: int) -> list[Delegation]:
    mine = _in_period(v, all_)
    if v.status == "active":
        return [d for d in mine if d.ended_tx is None and d.start <= now < d.end]
    return mine


def window(v: StakerView, delegations: Sequence[Delegation], now: int) -> tuple[int, int]:
    """[from, until): the chain times at which `v`'s entry renders as it does at `now`. Its
    status turns at its start and end, an active one's delegations at theirs (`delegations`:
    its node's, as `figures` is given them); nothing else in it reads the time."""
    instants = {v.start, v.end}
    for d in _in_period(v, delegations):
        instants.update((d.start, d.end))
    since = max((t for t in instants if t <= now), default=0)
    until = min((t for t in instants if t > now), default=FOREVER)
    return since, until


def figures(
    v: StakerView,
    delegations: Sequence[Delegation],
    rewards: dict[str, list[RewardUtxo]],
    observed: dict[str, Observation],
    now: int,
) -> Figures:
    mine = _delegations(v, delegations, now)
    delegated = sum(d.amount for d in mine)
    fee = v.delegation_fee or 0
    if v.status == "active":
        earned = sum((d.potential_reward or 0) * fee // PERCENT for d in mine)
    else:
        earned = sum(u.amount for u in rewards.get(v.tx_id, ()) if u.reward_type == "VALIDATOR_FEE")
    capacity = None
    if v.kind == "VALIDATOR":
        ceiling = min(v.amount * MAX_WEIGHT_FACTOR, MAX_VALIDATOR_STAKE)
        capacity = max(0, ceiling - v.amount - delegated)
    obs = observed.get(v.tx_id)
    uptime = float(obs.uptime) if obs is not None else 0.0
    return Figures(len(mine), delegated, earned, capacity, uptime, obs)


def _rewards(v: StakerView, validation: int, delegation: int) -> Json:
    out: Json = {
        "validationRewardAmount": str(validation),
        "delegationRewardAmount": str(delegation),
    }
    if v.reward_addresses:
        out["rewardAddresses"] = list(v.reward_addresses)
    return out


def render(v: StakerView, f: Figures, rewards: list[RewardUtxo], total_stake: int) -> Json:
    out: Json = {
        "txHash": v.tx_id,
        "nodeId": v.node_id,
        "subnetId": v.subnet_id,
        "amountStaked": str(v.amount),
        "startTimestamp": v.start,
        "endTimestamp": v.end,
    }
    if v.delegation_fee is not None:
        out["delegationFee"] = percent_text(v.delegation_fee)
    # Parsed only where present (most validations on a page have none: pre-Durango txs).
    bls = orjson.loads(v.details).get("blsCredentials") if '"blsCredentials"' in v.details else None
    if bls:
        out["blsCredentials"] = bls
    if v.status == "pending":
        return {**out, "validationStatus": "pending"}
    if v.status == "removed":
        return {
            **out,
            "removeTxHash": v.ended_tx,
            "removeTimestamp": v.ended_time,
            "validationStatus": "removed",
        }
    if v.status == "completed":
        validation = sum(u.amount for u in rewards if u.reward_type == "VALIDATOR")
        paid = _rewards(v, validation, f.delegation_reward)
        if v.ended_tx is not None and v.ended_type == "RewardValidatorTx":
            paid["rewardTxHash"] = v.ended_tx
        return {
            **out,
            "delegatorCount": f.delegators,
            "amountDelegated": str(f.delegated),
            "rewards": paid,
            "validationStatus": "completed",
        }
    share = (v.amount + f.delegated) * 100 / total_stake if total_stake else 0.0
    connected = f.observation is not None and f.observation.connected
    active: Json = {
        **out,
        "stakePercentage": round(share, 4),
        "delegatorCount": f.delegators,
        "amountDelegated": str(f.delegated),
        "uptimePerformance": f.uptime,
        "potentialRewards": _rewards(v, v.potential_reward or 0, f.delegation_reward),
        "validationStatus": "active",
        # The node's own view: whether it is connected to the validator now; it reports no
        # benched requests through its public APIs.
        "validatorHealth": {
            "reachabilityPercent": 100.0 if connected else 0.0,
            "benchedPChainRequestsPercent": 0.0,
            "benchedXChainRequestsPercent": 0.0,
            "benchedCChainRequestsPercent": 0.0,
        },
        "geolocation": None,  # no geolocation source
    }
    if f.observation is not None and f.observation.version:
        active["avalancheGoVersion"] = f.observation.version
    if f.capacity is not None:
        active["delegationCapacity"] = str(f.capacity)
    return active


@dataclass(frozen=True, slots=True)
class Entry:
    view: StakerView
    figures: Figures
    document: Json
    window: tuple[int, int]  # chain times [from, until) at which `document` holds


def entries(m: Measured) -> list[Entry]:
    """The entries of `m`'s stakers, in their order."""
    # Each validation matches only its node's delegations on its subnet: grouped once, not
    # scanned whole per validation (a figure sort measures every validation of the subnet).
    by_node: dict[tuple[str, str], list[Delegation]] = {}
    for d in m.delegations:
        by_node.setdefault((d.node_id, d.subnet_id), []).append(d)
    out = []
    for v in m.stakers:
        mine = by_node.get((v.node_id, v.subnet_id), [])
        f = figures(v, mine, m.rewards, m.observations, m.now)
        document = render(v, f, m.rewards[v.tx_id], m.current_stake)
        out.append(Entry(v, f, document, window(v, mine, m.now)))
    return out
