"""`primary_network_address_activity` messages of the P-Chain: written by the primary indexer's
writer into the webhook outbox in the transaction of the batch they report (as address_activity's
are, store/webhook_outbox.py), then delivered by the same worker.

Sub-events, per webhook that follows an address:
- balance_change: a tx changed the balance of followed addresses (it emitted or consumed their
  UTXOs, or, a RewardValidatorTx, returned their stake); one message per (webhook, tx) with the
  tx as the data API renders it and the combined balances of the followed addresses it touched.
- balance_threshold: one followed address's balance of the webhook's `balanceType` went from at
  least the threshold to below it in a tx's block; one message per (webhook, tx, address).
- reward_distribution: a reward UTXO paid to followed addresses; one message per (webhook, UTXO).

Balances are the ones at the end of the tx's block (store/webhook_primary_balances.py). The
P-Chain index serves accepted blocks only and never unwinds, so these messages are never taken
back (no `removed`). Message ids derive from what they report: a batch written again (after a
kill -9 before its commit) writes the same ids, which the outbox ignores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from snowfield.store import sql
from snowfield.store.database import Writer
from snowfield.store.primary_documents import render_stored
from snowfield.store.primary_documents import utxo as render_utxo
from snowfield.store.primary_queries import _UTXO_COLUMNS, _utxo
from snowfield.store.primary_rows import BlockRows, UtxoRow
from snowfield.store.primary_schema import split_list
from snowfield.store.webhook_outbox import EVENT, PENDING, insert, message_id
from snowfield.store.webhook_primary_balances import Ledger, Owned, avax_of, balances

EVENT_TYPE = "primary_network_address_activity"
BALANCE_CHANGE, THRESHOLD, REWARD = "balance_change", "balance_threshold", "reward_distribution"
# The outbox's chain_id is an EVM chain id; the P-Chain's messages use this key, which no EVM
# chain has (the delivery log shows the webhook's chainId instead).
P_CHAIN_KEY = -1
P_CHAIN_ALIAS = "p-chain"


@dataclass(frozen=True, slots=True)
class Hook:
    id: str
    network: str
    chain_ref: str
    sub_events: frozenset[str]
    balance_type: str | None = None
    threshold: int | None = None


@dataclass(slots=True)
class _Batch:
    """What the messages of one batch are built from."""

    pchain: str
    avax_asset: str
    blocks: Sequence[BlockRows]
    hooks: dict[str, Hook]
    followers: dict[str, set[str]]  # address -> webhooks
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    now_ms: int = 0


def hooks(w: Writer, chain: str, alias: str = P_CHAIN_ALIAS) -> dict[str, Hook]:
    """The active primary_network_address_activity webhooks of this chain (P or X)."""
    rows = w.query(
        "SELECT id, network, chain_ref, metadata FROM webhooks WHERE status = 'active'"
        " AND event_type = ? AND chain_ref IN (?, ?)",
        (EVENT_TYPE, chain, alias),
    )
    out = {}
    for hook_id, network, chain_ref, text in rows:
        meta = orjson.loads(text)
        threshold = meta.get("balanceThresholdFilter") or {}
        out[str(hook_id)] = Hook(
            str(hook_id),
            str(network or ""),
            str(chain_ref),
            frozenset(meta.get("subEvents") or ()),
            threshold.get("balanceType"),
            int(threshold["balanceThreshold"]) if threshold else None,
        )
    return out


def followers_of(
    w: Writer, hook_ids: Sequence[str], addresses: Sequence[str]
) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    marks = sql.in_list(hook_ids)
    for part in sql.chunks(sorted(set(addresses))):
        for hook, address in w.query(
            f"SELECT webhook_id, address FROM webhook_addresses WHERE webhook_id IN {marks}"
            f" AND address IN {sql.in_list(part)}",
            (*hook_ids, *part),
        ):
            out.setdefault(str(address), set()).add(str(hook))
    return out


def _touched(w: Writer, pchain: str, blocks: Sequence[BlockRows]) -> dict[str, set[str]]:
    """Per tx, the addresses whose balance it may change: the owners of what it emits and
    consumes, and (a RewardValidatorTx) of the stake it returns."""
    out = {t.tx_id: set(t.addresses) for b in blocks for t in b.txs}
    ids = sorted(out)
    for part in sql.chunks(ids):
        for consumer, owners in w.query(
            "SELECT consuming_tx, addresses FROM p_utxos WHERE pchain = ?"
            f" AND consuming_tx IN {sql.in_list(part)}",
            (pchain, *part),
        ):
            out[str(consumer)].update(split_list(owners))
    ended = {staking: reward_tx for b in blocks for staking, reward_tx in b.ended}
    stakes = sorted(ended)
    for part in sql.chunks(stakes):
        for staking, owners in w.query(
            "SELECT tx_id, addresses FROM p_utxos WHERE pchain = ? AND staked = 1"
            f" AND tx_id IN {sql.in_list(part)}",
            (pchain, *part),
        ):
            out.setdefault(ended[str(staking)], set()).update(split_list(owners))
    return out


def enqueue(
    w: Writer,
    pchain: str,
    blocks: Sequence[BlockRows],
    rewards: Sequence[tuple[int, UtxoRow]],
    now_ms: int,
) -> int:
    """Writes the batch's messages (after its rows); the count written. Costs one query when no
    webhook follows the P-Chain."""
    if not blocks:
        return 0
    found = hooks(w, pchain)
    if not found:
        return 0
    touched = _touched(w, pchain, blocks)
    candidates = {a for owners in touched.values() for a in owners}
    candidates.update(a for _, u in rewards for a in u.addresses)
    followers = followers_of(w, sorted(found), sorted(candidates))
    if not followers:
        return 0
    network = w.query("SELECT avax_asset FROM primary_networks WHERE pchain = ?", (pchain,))
    batch = _Batch(pchain, str(network[0][0]), blocks, found, followers, now_ms=now_ms)
    _tx_messages(w, batch, touched, rewards)
    _reward_messages(w, batch, rewards)
    insert(w, batch.rows)
    return len(batch.rows)


def _tx_messages(
    w: Writer,
    batch: _Batch,
    touched: Mapping[str, set[str]],
    rewards: Sequence[tuple[int, UtxoRow]],
) -> None:
    """balance_change and balance_threshold, block by block, from a ledger of the followed
    addresses' UTXOs moved through the batch."""
    first = batch.blocks[0].height
    ledger = Ledger(w, batch.pchain, sorted(batch.followers), first - 1)
    paid: dict[int, list[UtxoRow]] = {}
    for height, u in rewards:
        paid.setdefault(height, []).append(u)
    hits = {t.tx_id: _hits(batch, touched.get(t.tx_id, set())) for b in batch.blocks for t in b.txs}
    docs = render_stored(w, batch.pchain, batch.avax_asset, sorted(t for t, h in hits.items() if h))
    for block in batch.blocks:
        hooks = {h for t in block.txs for h in hits[t.tx_id]}
        # Read only for blocks that report: an active address holds many UTXOs.
        before = []
        if any(batch.hooks[h].threshold is not None for h in hooks):
            before = ledger.owned(block.timestamp)
        ledger.apply(block, paid.get(block.height, ()))
        if not hooks:
            continue
        after = ledger.owned(block.timestamp)
        for t in block.txs:
            for hook_id, followed in sorted(hits[t.tx_id].items()):
                hook = batch.hooks[hook_id]
                tx = orjson.loads(docs[t.tx_id])
                if BALANCE_CHANGE in hook.sub_events:
                    _balance_change(batch, hook, block, t.tx_index, tx, followed, after)
                if THRESHOLD in hook.sub_events and hook.threshold is not None:
                    _thresholds(batch, hook, block, t.tx_index, tx, followed, before, after)


def _hits(batch: _Batch, owners: set[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for address in owners:
        for hook_id in batch.followers.get(address, ()):
            out.setdefault(hook_id, set()).add(address)
    return out


def _balance_change(
    batch: _Batch,
    hook: Hook,
    block: BlockRows,
    tx_index: int,
    tx: dict[str, Any],
    followed: set[str],
    after: Sequence[Owned],
) -> None:
    event = {
        "eventType": BALANCE_CHANGE,
        **_where(batch, hook, block),
        "addresses": sorted(followed),
        "transaction": tx,
        "balances": balances(batch.avax_asset, [o for o in after if o.address in followed]),
    }
    _message(batch, hook, block, tx_index, (tx["txHash"], BALANCE_CHANGE), event)


def _thresholds(
    batch: _Batch,
    hook: Hook,
    block: BlockRows,
    tx_index: int,
    tx: dict[str, Any],
    followed: set[str],
    before: Sequence[Owned],
    after: Sequence[Owned],
) -> None:
    assert hook.balance_type is not None and hook.threshold is not None
    for address in sorted(followed):
        was = avax_of(before, address, hook.balance_type, batch.avax_asset)
        now = avax_of(after, address, hook.balance_type, batch.avax_asset)
        if not was >= hook.threshold > now:
            continue
        event = {
            "eventType": THRESHOLD,
            **_where(batch, hook, block),
            "addresses": [address],
            "balanceType": hook.balance_type,
            "balanceThreshold": str(hook.threshold),
            "balanceBefore": str(was),
            "balanceAfter": str(now),
            "transaction": tx,
            "balances": balances(batch.avax_asset, [o for o in after if o.address == address]),
        }
        _message(batch, hook, block, tx_index, (tx["txHash"], THRESHOLD, address), event)


def _reward_messages(w: Writer, batch: _Batch, rewards: Sequence[tuple[int, UtxoRow]]) -> None:
    paid = [(h, u) for h, u in rewards if any(a in batch.followers for a in u.addresses)]
    if not paid:
        return
    ids = sorted({u.utxo_id for _, u in paid})
    rows = w.query(
        f"SELECT {_UTXO_COLUMNS} FROM p_utxos WHERE pchain = ? AND utxo_id IN {sql.in_list(ids)}",
        (batch.pchain, *ids),
    )
    stored = {r[0]: _utxo(r) for r in rows}
    blocks = {b.height: b for b in batch.blocks}
    for height, u in paid:
        block = blocks[height]
        hits = _hits(batch, set(u.addresses))
        for hook_id, followed in sorted(hits.items()):
            hook = batch.hooks[hook_id]
            if REWARD not in hook.sub_events:
                continue
            event = {
                "eventType": REWARD,
                **_where(batch, hook, block),
                "addresses": sorted(followed),
                "stakingTxHash": u.tx_id,
                "rewardType": u.reward_type,
                "amount": str(u.amount),
                "utxo": render_utxo(batch.avax_asset, stored[u.utxo_id]),
            }
            _message(batch, hook, block, u.output_index, (u.utxo_id, REWARD), event)


def _where(batch: _Batch, hook: Hook, block: BlockRows) -> dict[str, Any]:
    return {
        "network": hook.network,
        "chainId": batch.pchain,
        "blockNumber": str(block.height),
        "blockHash": block.block_id,
        "blockTimestamp": block.timestamp,
    }


def _message(
    batch: _Batch,
    hook: Hook,
    block: BlockRows,
    position: int,
    facts: tuple[str, ...],
    event: dict[str, Any],
) -> None:
    mid = message_id(hook.id, batch.pchain, block.block_id, *facts, EVENT)
    body = {"webhookId": hook.id, "eventType": EVENT_TYPE, "messageId": mid, "event": event}
    batch.rows.append(
        (
            mid, hook.id, P_CHAIN_KEY, block.height, block.block_id, position, block.timestamp,
            EVENT, orjson.dumps(body).decode(), batch.now_ms, PENDING, 0, batch.now_ms, 0,
        )
    )  # fmt: skip
