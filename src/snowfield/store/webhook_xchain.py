"""`primary_network_address_activity` messages of the X-Chain: written by the X-Chain writer
(store/x_chain.py) into the webhook outbox in the transaction of the txs they report, taken
back with them when the X-Chain index unwinds (a `removed` message, store/webhook_outbox.py).

balance_change: a tx emitted or consumed UTXOs of followed addresses (the addresses the data
API lists the tx under); one message per (webhook, tx) with the tx as the data API renders it
(without where it was accepted: the index learns its vertex or block after the tx) and the
combined `unlocked` / `locked` balances of the followed addresses it touched, after the tx.
balance_threshold: one followed address's nAVAX in `unlocked` or `locked` went from at least the
threshold to below it in the tx. The X-Chain pays no rewards. A message's position is the tx's
position in the node's X-Chain tx index (the outbox's block_number)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from snowfield.store import sql, webhook_outbox
from snowfield.store.database import Writer
from snowfield.store.webhook_outbox import EVENT, PENDING, insert, message_id
from snowfield.store.webhook_primary import (
    BALANCE_CHANGE,
    EVENT_TYPE,
    THRESHOLD,
    Hook,
    followers_of,
    hooks,
)
from snowfield.store.x_address_queries import XTx, assets, tx_utxos
from snowfield.store.x_documents import Assets, transaction
from snowfield.store.x_rows import XTxRows

X_CHAIN_KEY = -2  # the outbox's chain_id of the X-Chain's messages (no EVM chain has it)
X_CHAIN_ALIAS = "x-chain"
X_BALANCE_TYPES = ("unlocked", "locked")


@dataclass(frozen=True, slots=True)
class _Held:
    owners: frozenset[str]
    asset_id: str
    amount: int
    locktime: int


class XLedger:
    """The fungible UTXOs followed addresses hold on the X-Chain: read once (at the position
    before a batch), then moved tx by tx by the batch's rows."""

    def __init__(self, w: Writer, xchain: str, addresses: Iterable[str], index: int) -> None:
        self.xchain = xchain
        self.followed = frozenset(addresses)
        self.utxos: dict[str, _Held] = {}
        for part in sql.chunks(sorted(self.followed)):
            for address, utxo_id, asset_id, amount, locktime in w.query(
                "SELECT o.address, u.utxo_id, u.asset_id, u.amount, u.locktime"
                " FROM x_utxo_owners o CROSS JOIN x_utxos u WHERE o.xchain = ?"
                f" AND o.address IN {sql.in_list(part)} AND u.xchain = o.xchain"
                " AND u.utxo_id = o.utxo_id AND u.consumed_on = o.xchain"
                " AND u.output_type = 'SECP256K1' AND u.idx <= ?"
                " AND (u.consuming_idx IS NULL OR u.consuming_idx > ?)",
                (xchain, *part, index, index),
            ):
                known = self.utxos.get(str(utxo_id))
                owners = frozenset({str(address)}) | (known.owners if known else frozenset())
                self.utxos[str(utxo_id)] = _Held(owners, str(asset_id), int(amount), int(locktime))

    def apply(self, tx: XTxRows) -> None:
        for u in tx.utxos:
            owners = self.followed.intersection(u.addresses)
            if owners and u.consumed_on == self.xchain and u.output_type == "SECP256K1":
                self.utxos[u.utxo_id] = _Held(frozenset(owners), u.asset_id, u.amount, u.locktime)
        for utxo_id in tx.consumed:
            self.utxos.pop(utxo_id, None)

    def balances(self, assets: Assets, addresses: set[str], now: int) -> dict[str, Any]:
        """XChainBalances' `unlocked` and `locked` (AggregatedAssetAmount per asset) of these
        addresses, each UTXO once."""
        sums: dict[str, dict[str, tuple[int, int]]] = {k: {} for k in X_BALANCE_TYPES}
        for u in self.utxos.values():
            if u.owners & addresses:
                kind = sums["locked" if u.locktime > now else "unlocked"]
                total, count = kind.get(u.asset_id, (0, 0))
                kind[u.asset_id] = (total + u.amount, count + 1)
        return {
            k: [
                {**assets.amount(a, total), "utxoCount": count}
                for a, (total, count) in sorted(per_asset.items())
            ]
            for k, per_asset in sums.items()
        }

    def avax(self, address: str, kind: str, avax_asset: str, now: int) -> int:
        return sum(
            u.amount
            for u in self.utxos.values()
            if address in u.owners
            and u.asset_id == avax_asset
            and (u.locktime > now) == (kind == "locked")
        )


def enqueue(w: Writer, xchain: str, txs: Sequence[XTxRows], now_ms: int) -> int:
    """Writes the messages of these txs (after their rows); the count written. Costs one query
    when no webhook follows the X-Chain."""
    if not txs:
        return 0
    found = hooks(w, xchain, X_CHAIN_ALIAS)
    if not found:
        return 0
    lo, hi = txs[0].index, txs[-1].index
    named: dict[int, set[str]] = {}
    for address, idx in w.query(
        "SELECT address, idx FROM x_tx_addresses WHERE xchain = ? AND idx >= ? AND idx <= ?",
        (xchain, lo, hi),
    ):
        named.setdefault(int(idx), set()).add(str(address))
    followers = followers_of(w, sorted(found), sorted({a for s in named.values() for a in s}))
    if not followers:
        return 0
    network = w.query("SELECT avax_asset FROM primary_networks WHERE xchain = ?", (xchain,))
    avax = str(network[0][0]) if network else ""
    ledger = XLedger(w, xchain, sorted(followers), lo - 1)
    generations = _generations(w, lo, hi)
    rows: list[tuple[Any, ...]] = []
    for tx in txs:
        hits: dict[str, set[str]] = {}
        for address in named.get(tx.index, ()):
            for hook_id in followers.get(address, ()):
                hits.setdefault(hook_id, set()).add(address)
        before = {}
        if any(THRESHOLD in found[h].sub_events for h in hits):
            touched = {a for s in hits.values() for a in s}
            before = {a: dict(_avax(ledger, a, avax, tx.timestamp)) for a in touched}
        ledger.apply(tx)
        if not hits:
            continue
        document = _document(w, xchain, avax, tx)
        held = sorted({u.asset_id for u in ledger.utxos.values()})
        facts = Assets(avax, assets(w, xchain, held))
        for hook_id, followed in sorted(hits.items()):
            hook = found[hook_id]
            where = {"network": hook.network, "chainId": xchain, "txIndex": str(tx.index)}
            generation = generations.get((hook_id, tx.tx_id), 0)
            if BALANCE_CHANGE in hook.sub_events:
                event = {
                    "eventType": BALANCE_CHANGE,
                    **where,
                    "addresses": sorted(followed),
                    "transaction": document,
                    "balances": ledger.balances(facts, followed, tx.timestamp),
                }
                rows.append(_row(hook, tx, (BALANCE_CHANGE, generation), event, now_ms))
            if THRESHOLD in hook.sub_events and hook.balance_type in X_BALANCE_TYPES:
                rows += _thresholds(hook, tx, where, document, followed, before, ledger, avax,
                                    generation, now_ms)  # fmt: skip
    insert(w, rows)
    return len(rows)


def _avax(ledger: XLedger, address: str, avax: str, now: int) -> list[tuple[str, int]]:
    return [(k, ledger.avax(address, k, avax, now)) for k in X_BALANCE_TYPES]


def _thresholds(
    hook: Hook,
    tx: XTxRows,
    where: dict[str, Any],
    document: dict[str, Any],
    followed: set[str],
    before: dict[str, dict[str, int]],
    ledger: XLedger,
    avax: str,
    generation: int,
    now_ms: int,
) -> list[tuple[Any, ...]]:
    assert hook.balance_type is not None and hook.threshold is not None
    out = []
    for address in sorted(followed):
        was = before[address][hook.balance_type]
        now = ledger.avax(address, hook.balance_type, avax, tx.timestamp)
        if not was >= hook.threshold > now:
            continue
        event = {
            "eventType": THRESHOLD,
            **where,
            "addresses": [address],
            "balanceType": hook.balance_type,
            "balanceThreshold": str(hook.threshold),
            "balanceBefore": str(was),
            "balanceAfter": str(now),
            "transaction": document,
        }
        out.append(_row(hook, tx, (THRESHOLD, address, generation), event, now_ms))
    return out


def _document(w: Writer, xchain: str, avax: str, tx: XTxRows) -> dict[str, Any]:
    """The tx as the data API renders it, less where it was accepted (not known yet)."""
    emitted, consumed = tx_utxos(w, xchain, [tx.tx_id])
    ids = [u.asset_id for u in (*emitted[tx.tx_id], *consumed[tx.tx_id])] + [tx.tx_id]
    facts = Assets(avax, assets(w, xchain, ids))
    row = XTx(
        tx.tx_id, tx.index, tx.timestamp, tx.tx_type, tx.memo, tx.source_chain,
        tx.destination_chain,
    )  # fmt: skip
    out = transaction(facts, xchain, row, emitted[tx.tx_id], consumed[tx.tx_id], [])
    for placed in ("chainFormat", "vertices"):
        out.pop(placed, None)
    return out


def _generations(w: Writer, lo: int, hi: int) -> dict[tuple[str, str], int]:
    """(webhook, tx) -> how many times its messages were taken back: a tx unwound and indexed
    again is news again, under new ids."""
    rows = w.query(
        "SELECT webhook_id, block_hash, COUNT(*) FROM webhook_outbox WHERE chain_id = ?"
        " AND block_number >= ? AND block_number <= ? AND kind = 'removed'"
        " GROUP BY webhook_id, block_hash",
        (X_CHAIN_KEY, lo, hi),
    )
    return {(str(r[0]), str(r[1])): int(r[2]) for r in rows}


def _row(
    hook: Hook, tx: XTxRows, facts: tuple[object, ...], event: dict[str, Any], now_ms: int
) -> tuple[Any, ...]:
    mid = message_id(hook.id, tx.tx_id, *facts, EVENT)
    body = {"webhookId": hook.id, "eventType": EVENT_TYPE, "messageId": mid, "event": event}
    return (
        mid, hook.id, X_CHAIN_KEY, tx.index, tx.tx_id, 0, tx.timestamp, EVENT,
        orjson.dumps(body).decode(), now_ms, PENDING, 0, now_ms, 0,
    )  # fmt: skip


def unwind(w: Writer, from_index: int, now_ms: int) -> None:
    """Takes back the messages of the txs at positions >= from_index (store/webhook_outbox.py:
    untried ones deleted, tried ones followed by `removed`)."""
    webhook_outbox.unwind(w, X_CHAIN_KEY, from_index, now_ms)
