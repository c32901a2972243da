"""`validator_activity` webhooks: the P-Chain's staking and L1 validator events, written to the
webhook outbox (store/webhook_outbox.py) in the transaction that indexes what they report, so
the delivery worker sends them as it sends address_activity (signed, retried, a stable
messageId, at least once).

Two writers call it: the primary network's block writer (store/primary.py: stakes, rewards and
the L1 validator txs) and the validator observation (store/validator_state.py: an L1
validator's balance falling below a webhook's threshold, or running out, which no tx reports).
The P-Chain never unwinds an accepted block, so these messages are never taken back.

The payload is ours (the real service publishes none): the address_activity envelope
({webhookId, eventType, messageId, event}) around the event as docs/data-api/webhooks.md
describes it, built here once so a retry sends the very same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from snowfield.store import sql
from snowfield.store.database import Writer
from snowfield.store.primary_rows import BlockRows, L1Change, UtxoRow
from snowfield.store.webhook_outbox import EVENT, PENDING, insert, message_id

# P-Chain messages share primary_network_address_activity's outbox chain key (no EVM chain has
# it, so EVM unwinds and the `webhooks` feature of GET /v1/chains never touch them).
from snowfield.store.webhook_primary import P_CHAIN_KEY

EVENT_TYPE = "validator_activity"
VALIDATOR_STAKE, DELEGATOR_STAKE = "validator_stake", "delegator_stake"
REWARD = "reward_distribution"
BALANCE_INCREASED = "l1_validator_balance_increased"
DISABLED, REMOVED = "l1_validator_disabled", "l1_validator_removed"
THRESHOLD = "l1_validator_balance_threshold"
_L1_KIND = {"increase": BALANCE_INCREASED, "disable": DISABLED}


class L1Validator(Protocol):
    """An L1 validator as observed (store/validator_state.py's, which imports this module)."""

    @property
    def validation_id(self) -> str: ...
    @property
    def subnet_id(self) -> str: ...
    @property
    def node_id(self) -> str: ...
    @property
    def weight(self) -> int: ...
    @property
    def balance(self) -> int: ...
    @property
    def height(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Hook:
    """An active validator_activity webhook, as the writers match events against it."""

    id: str
    key_type: str  # nodeId | subnetId
    key: str
    sub_events: frozenset[str]
    node_ids: frozenset[str]  # empty: any node
    subnet_ids: frozenset[str]  # empty: any subnet
    threshold: int | None  # l1ValidatorFeeBalanceThreshold (nAVAX)

    def wants(self, sub_event: str, node_id: str, subnet_id: str) -> bool:
        if sub_event not in self.sub_events:
            return False
        if (node_id if self.key_type == "nodeId" else subnet_id) != self.key:
            return False
        if self.node_ids and node_id not in self.node_ids:
            return False
        return not self.subnet_ids or subnet_id in self.subnet_ids


@dataclass(frozen=True, slots=True)
class Event:
    """One event before it meets the webhooks: where it happened and what it says."""

    sub_event: str
    node_id: str
    subnet_id: str
    height: int
    block_hash: str  # "" for an observation
    tx_index: int
    timestamp: int
    key: tuple[object, ...]  # with the webhook and sub-event, the message's identity
    body: dict[str, Any] = field(default_factory=dict)


def network_name(network_id: int) -> str:
    """The PrimaryNetworkType a network answers to (a local devnet answers as fuji; `hooks`
    says the same in SQL)."""
    return "mainnet" if network_id == 1 else "fuji"


def hooks(w: Writer, pchain: str) -> list[Hook]:
    """The active validator_activity webhooks of the network the store indexes (one indexed
    query: the writers ask at every batch)."""
    rows = w.query(
        "SELECT h.id, h.metadata FROM primary_networks n JOIN webhooks h"
        " ON h.event_type = ? AND h.status = 'active'"
        " AND h.network = CASE WHEN n.network_id = 1 THEN 'mainnet' ELSE 'fuji' END"
        " WHERE n.pchain = ?",
        (EVENT_TYPE, pchain),
    )
    return [_hook(str(r[0]), orjson.loads(r[1])) for r in rows]


def _hook(hook_id: str, meta: dict[str, Any]) -> Hook:
    threshold = meta.get("l1ValidatorFeeBalanceThreshold")
    return Hook(
        hook_id,
        str(meta["keyType"]),
        str(meta["keys"][0]),
        frozenset(meta["subEvents"]["validatorActivitySubEvents"]),
        frozenset(meta.get("nodeIds") or ()),
        frozenset(meta.get("subnetIds") or ()),
        None if threshold is None else int(threshold),
    )


def _enqueue(
    w: Writer, pchain: str, targets: Sequence[Hook], events: Iterable[Event], now_ms: int
) -> int:
    # By the key each follows: an event meets only the webhooks of its node and its subnet
    # (matching every event against every webhook was a third of a staking batch's write).
    by_key: dict[tuple[str, str], list[Hook]] = {}
    for hook in targets:
        by_key.setdefault((hook.key_type, hook.key), []).append(hook)
    rows = []
    for e in events:
        near = by_key.get(("nodeId", e.node_id), []) + by_key.get(("subnetId", e.subnet_id), [])
        for hook in near:
            if not hook.wants(e.sub_event, e.node_id, e.subnet_id):
                continue
            mid = message_id(hook.id, pchain, e.sub_event, *e.key)
            event = {"subEventType": e.sub_event, "blockchainId": pchain, **e.body}
            body = {"webhookId": hook.id, "eventType": EVENT_TYPE, "messageId": mid, "event": event}
            rows.append(
                (
                    mid, hook.id, P_CHAIN_KEY, e.height, e.block_hash, e.tx_index, e.timestamp,
                    EVENT, orjson.dumps(body).decode(), now_ms, PENDING, 0, now_ms, 0,
                )
            )  # fmt: skip
    insert(w, rows)
    return len(rows)


# -- the block writer's events ----------------------------------------------------------------


def on_blocks(
    w: Writer,
    pchain: str,
    blocks: Sequence[BlockRows],
    rewards: Sequence[tuple[int, UtxoRow]],
    now_ms: int,
) -> int:
    """Remembers the batch's L1 validations, then writes its events for the active
    validator_activity webhooks (after the batch's rows and documents); the count written.
    One query when no such webhook exists."""
    _remember(w, pchain, blocks)
    targets = hooks(w, pchain)
    if not targets:
        return 0
    events = [*_stakes(w, pchain, blocks), *_rewards(w, pchain, blocks, rewards)]
    events += _l1_events(w, pchain, blocks)
    return _enqueue(w, pchain, targets, events, now_ms)


def _remember(w: Writer, pchain: str, blocks: Sequence[BlockRows]) -> None:
    for b in blocks:
        for c in b.l1_changes:
            if c.kind == "register":
                w.execute(
                    "INSERT INTO p_l1_validations (pchain, validation_id, subnet_id, node_id,"
                    " weight, tx_id, height) VALUES (?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (pchain, validation_id) DO NOTHING",
                    (pchain, c.validation_id, c.subnet_id, c.node_id, str(c.weight), c.tx_id,
                     b.height),
                )  # fmt: skip
            elif c.kind == "weight":
                w.execute(
                    "UPDATE p_l1_validations SET weight = ? WHERE pchain = ? AND validation_id = ?",
                    (str(c.weight), pchain, c.validation_id),
                )
            elif c.kind == "disable":
                w.execute(
                    "UPDATE p_l1_validations SET disabled_height = ?"
                    " WHERE pchain = ? AND validation_id = ?",
                    (b.height, pchain, c.validation_id),
                )


def _documents(w: Writer, pchain: str, tx_ids: Sequence[str]) -> dict[str, Any]:
    """Operation 11's documents of staking txs (written earlier in this transaction), as
    their JSON text: a body embeds them without parsing them again."""
    out: dict[str, Any] = {}
    for part in sql.chunks(sorted(set(tx_ids))):
        for tx_id, document in w.query(
            "SELECT tx_id, document FROM p_staking_txs WHERE pchain = ?"
            f" AND tx_id IN {sql.in_list(part)} AND document IS NOT NULL",
            (pchain, *part),
        ):
            out[str(tx_id)] = orjson.Fragment(document)  # embedded as stored
    return out


def _where(b: BlockRows, tx_index: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"blockNumber": str(b.height), "blockHash": b.block_id}
    out["blockTimestamp"] = b.timestamp
    if tx_index is not None:
        out["transactionIndex"] = tx_index
    return out


def _stakes(w: Writer, pchain: str, blocks: Sequence[BlockRows]) -> list[Event]:
    documents = _documents(w, pchain, [s.tx_id for b in blocks for s in b.stakers])
    out = []
    for b in blocks:
        index = {t.tx_id: (t.tx_index, t.tx_type) for t in b.txs}
        for s in b.stakers:
            sub = DELEGATOR_STAKE if s.kind == "DELEGATOR" else VALIDATOR_STAKE
            tx_index, tx_type = index[s.tx_id]
            staker: dict[str, Any] = {
                "txHash": s.tx_id,
                "txType": tx_type,
                "nodeId": s.node_id,
                "subnetId": s.subnet_id,
                "startTimestamp": s.start,
                "endTimestamp": s.end,
                "amountStaked": str(s.amount),
                "rewardAddresses": list(s.reward_addresses),
            }
            if s.delegation_fee is not None and s.kind != "DELEGATOR":
                staker["delegationFee"] = _percent(s.delegation_fee)
            body = {**_where(b, tx_index), "txHash": s.tx_id, "staker": staker}
            if s.tx_id in documents:
                body["transaction"] = documents[s.tx_id]
            out.append(
                Event(sub, s.node_id, s.subnet_id, b.height, b.block_id, tx_index, b.timestamp,
                      (s.tx_id,), body)
            )  # fmt: skip
    return out


def _percent(millionths: int) -> str:
    """A delegation fee as the data API writes it (percent with four decimals)."""
    whole, rest = divmod(millionths, 10_000)
    return f"{whole}.{rest:04d}"


def _rewards(
    w: Writer, pchain: str, blocks: Sequence[BlockRows], rewards: Sequence[tuple[int, UtxoRow]]
) -> list[Event]:
    """One event per staker paid (its reward UTXOs together), at the commit block."""
    paid: dict[tuple[int, str], list[UtxoRow]] = {}
    for height, u in rewards:
        paid.setdefault((height, u.tx_id), []).append(u)
    if not paid:
        return []
    stakers = _stakers(w, pchain, [t for _, t in paid])
    documents = _documents(w, pchain, [t for _, t in paid])
    by_height = {b.height: b for b in blocks}
    out = []
    for (height, staking_tx), utxos in sorted(paid.items()):
        found = stakers.get(staking_tx)
        if found is None:
            continue
        kind, node_id, subnet_id, reward_tx = found
        b = by_height[height]
        reward: dict[str, Any] = {
            "stakingTxHash": staking_tx,
            "stakerType": kind,
            "nodeId": node_id,
            "subnetId": subnet_id,
            "amount": str(sum(u.amount for u in utxos)),
            "utxos": [_reward_utxo(u) for u in utxos],
        }
        if reward_tx is not None:
            reward["rewardTxHash"] = reward_tx
        body = {**_where(b), "reward": reward}
        if staking_tx in documents:
            body["transaction"] = documents[staking_tx]
        out.append(
            Event(REWARD, node_id, subnet_id, height, b.block_id, 0, b.timestamp, (staking_tx,),
                  body)
        )  # fmt: skip
    return out


def _reward_utxo(u: UtxoRow) -> dict[str, Any]:
    out: dict[str, Any] = {
        "utxoId": u.utxo_id,
        "amount": str(u.amount),
        "assetId": u.asset_id,
        "addresses": list(u.addresses),
    }
    if u.reward_type is not None:
        out["rewardType"] = u.reward_type
    return out


def _stakers(
    w: Writer, pchain: str, tx_ids: Sequence[str]
) -> dict[str, tuple[str, str, str, str | None]]:
    """Staking tx -> (kind, node, subnet, the RewardValidatorTx that ended it)."""
    out: dict[str, tuple[str, str, str, str | None]] = {}
    for part in sql.chunks(sorted(set(tx_ids))):
        for tx_id, kind, node, subnet, ended in w.query(
            "SELECT tx_id, kind, node_id, subnet_id, ended_tx FROM p_stakers WHERE pchain = ?"
            f" AND tx_id IN {sql.in_list(part)}",
            (pchain, *part),
        ):
            out[str(tx_id)] = (str(kind), str(node), str(subnet), ended)
    return out


def _validations(w: Writer, pchain: str, ids: Sequence[str]) -> dict[str, tuple[str, str, int]]:
    """Validation id -> (node, subnet, weight): as registered, else as last observed."""
    out: dict[str, tuple[str, str, int]] = {}
    for table in ("p_l1_validators", "p_l1_validations"):  # the registration wins
        for part in sql.chunks(sorted(set(ids))):
            for vid, node, subnet, weight in w.query(
                f"SELECT validation_id, node_id, subnet_id, weight FROM {table}"
                f" WHERE pchain = ? AND validation_id IN {sql.in_list(part)}",
                (pchain, *part),
            ):
                out[str(vid)] = (str(node), str(subnet), int(weight))
    return out


def _l1_events(w: Writer, pchain: str, blocks: Sequence[BlockRows]) -> list[Event]:
    changes = [(b, c) for b in blocks for c in b.l1_changes if c.kind != "register"]
    if not changes:
        return []
    known = _validations(w, pchain, [c.validation_id for _, c in changes])
    out = []
    for b, c in changes:
        if c.validation_id not in known:
            continue  # registered before this index began and never observed
        node, subnet, _ = known[c.validation_id]
        if c.kind == "weight" and c.weight != 0:
            continue  # a weight change that removes no one is no event of this type
        sub = REMOVED if c.kind == "weight" else _L1_KIND[c.kind]
        body = {
            **_where(b, c.tx_index),
            "txHash": c.tx_id,
            "l1ValidatorDetails": _l1_details(c, node, subnet),
        }
        out.append(
            Event(sub, node, subnet, b.height, b.block_id, c.tx_index, b.timestamp, (c.tx_id,),
                  body)
        )  # fmt: skip
    return out


def _l1_details(c: L1Change, node: str, subnet: str) -> dict[str, Any]:
    """As the data API's L1ValidatorDetailsTransaction, with what the tx says exactly."""
    out: dict[str, Any] = {"validationId": c.validation_id, "nodeId": node, "subnetId": subnet}
    if c.kind == "weight":
        out.update(weight=c.weight, remainingBalance=0)  # removal refunds the balance
    elif c.kind == "increase":
        out["balanceChange"] = c.balance
    elif c.kind == "disable":
        out["remainingBalance"] = 0  # disabling refunds the balance
    return out


# -- the observation's events -----------------------------------------------------------------


def on_observation(w: Writer, pchain: str, seen: Sequence[L1Validator], now_ms: int) -> int:
    """Compares the L1 validators the node lists now with the previous observation (before
    it is replaced): a balance that fell below a webhook's threshold, or ran out without a
    DisableL1ValidatorTx, is an event at the observed height. The count written."""
    targets = hooks(w, pchain)
    if not targets or not seen:
        return 0
    before = _observed(w, pchain, [v.validation_id for v in seen])
    now = now_ms // 1000  # an observation has no block time: the worker's lag counts from now
    events = _ran_out(seen, before, now)
    written = _enqueue(w, pchain, targets, events, now_ms)
    for hook in targets:
        if hook.threshold is not None:
            below = _below(seen, before, hook.threshold, now)
            written += _enqueue(w, pchain, [hook], below, now_ms)
    return written


def _ran_out(
    seen: Sequence[L1Validator],
    before: dict[str, tuple[tuple[int, int] | None, int | None]],
    now: int,
) -> list[Event]:
    """The validators whose balance ran out since the last observation, unless a
    DisableL1ValidatorTx (its own event) took it."""
    out = []
    for v in seen:
        prior, disabled = before.get(v.validation_id, (None, None))
        if v.weight == 0 or v.balance != 0 or prior is None or prior[0] == 0:
            continue
        if disabled is not None and disabled > prior[1]:
            continue
        body = {
            "blockNumber": str(v.height),
            "l1ValidatorDetails": _observed_details(v),
            "reason": "balance ran out",
        }
        out.append(
            Event(DISABLED, v.node_id, v.subnet_id, v.height, "", 0, now,
                  (v.validation_id, v.height), body)
        )  # fmt: skip
    return out


def _below(
    seen: Sequence[L1Validator],
    before: dict[str, tuple[tuple[int, int] | None, int | None]],
    threshold: int,
    now: int,
) -> list[Event]:
    """The validators whose balance crossed below `threshold` since the last observation
    (or is below it at the first) and is not 0: once per crossing."""
    out = []
    for v in seen:
        prior = before.get(v.validation_id, (None, None))[0]
        # A balance gone to 0 is the disabled event's news (a disabling or a balance run out).
        if v.weight == 0 or v.balance >= threshold or v.balance == 0:
            continue
        if prior is not None and prior[0] < threshold:
            continue
        body = {
            "blockNumber": str(v.height),
            "l1ValidatorDetails": _observed_details(v),
            "threshold": str(threshold),
        }
        out.append(
            Event(THRESHOLD, v.node_id, v.subnet_id, v.height, "", 0, now,
                  (v.validation_id, v.height, threshold), body)
        )  # fmt: skip
    return out


def _observed(
    w: Writer, pchain: str, ids: Sequence[str]
) -> dict[str, tuple[tuple[int, int] | None, int | None]]:
    """Validation id -> ((balance, height) last observed, or None; its last disabling)."""
    out: dict[str, tuple[tuple[int, int] | None, int | None]] = {}
    for part in sql.chunks(sorted(set(ids))):
        marks = sql.in_list(part)
        for vid, balance, height in w.query(
            "SELECT validation_id, balance, height FROM p_l1_validators WHERE pchain = ?"
            f" AND validation_id IN {marks}",
            (pchain, *part),
        ):
            out[str(vid)] = ((int(balance), int(height)), None)
        for vid, disabled in w.query(
            "SELECT validation_id, disabled_height FROM p_l1_validations WHERE pchain = ?"
            f" AND validation_id IN {marks} AND disabled_height IS NOT NULL",
            (pchain, *part),
        ):
            out[str(vid)] = (out.get(str(vid), (None, None))[0], int(disabled))
    return out


def _observed_details(v: L1Validator) -> dict[str, Any]:
    return {
        "validationId": v.validation_id,
        "nodeId": v.node_id,
        "subnetId": v.subnet_id,
        "weight": v.weight,
        "remainingBalance": v.balance,
    }
