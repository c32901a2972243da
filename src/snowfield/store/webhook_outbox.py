"""The webhook outbox: messages written by the indexer's writer in the transaction of the block
they report (so a kill -9 anywhere loses none and a batch written again adds none), unwound
with it, claimed by delivery workers under a lease, and kept afterwards as the delivery log.

Unwinds: a message not tried yet (nor held by a worker) is deleted (nothing was said, nothing to
take back); a message tried at least once, or in flight, stops its retries and is followed by a
`removed` message, the same body marked `"removed": true` with every log `removed`, as
`eth_subscribe` tells of a reorg.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from snowfield.store import sql
from snowfield.store.database import Database, Writer
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.rows import BlockBundle
from snowfield.store.webhook_payloads import (
    TokenFacts,
    addresses_of,
    event,
    involved,
    split,
    topics0,
)

_NAMESPACE = uuid.UUID("6f0e9a52-53a3-4c8e-9a35-2b9a3c1d7e10")
PENDING, DELIVERED, FAILED, UNWOUND = "pending", "delivered", "failed", "unwound"
EVENT, REMOVED = "event", "removed"


def message_id(*parts: object) -> str:
    """A message's id from what it reports: the same facts give the same id in every process."""
    return str(uuid.uuid5(_NAMESPACE, "|".join(str(p) for p in parts)))


@dataclass(frozen=True, slots=True)
class _Hook:
    id: str
    logs: bool
    internals: bool
    signatures: frozenset[str]


def _hooks(w: Writer, chain_id: int) -> dict[str, _Hook]:
    rows = w.query(
        "SELECT id, include_logs, include_internal, metadata FROM webhooks"
        " WHERE evm_chain = ? AND status = 'active' AND event_type = 'address_activity'",
        (chain_id,),
    )
    out = {}
    for r in rows:
        signatures = orjson.loads(r[3]).get("eventSignatures") or ()
        out[str(r[0])] = _Hook(
            str(r[0]), bool(r[1]), bool(r[2]), frozenset(s.lower() for s in signatures)
        )
    return out


def _followers(w: Writer, hooks: Sequence[str], addresses: Sequence[str]) -> dict[str, set[str]]:
    """Address -> the webhooks (of `hooks`) that follow it."""
    out: dict[str, set[str]] = {}
    marks = sql.in_list(hooks)
    for part in sql.chunks(addresses):
        for hook, address in w.query(
            f"SELECT webhook_id, address FROM webhook_addresses WHERE webhook_id IN {marks}"
            f" AND address IN {sql.in_list(part)}",
            (*hooks, *part),
        ):
            out.setdefault(str(address), set()).add(str(hook))
    return out


def _facts(w: Writer, chain_id: int, bundles: Sequence[BlockBundle]) -> dict[str, TokenFacts]:
    tokens = sorted({t.token for b in bundles for t in b.transfers})
    out = {}
    for part in sql.chunks(tokens):
        for address, name, symbol, decimals in w.query(
            "SELECT address, name, symbol, decimals FROM tokens WHERE chain_id = ?"
            f" AND address IN {sql.in_list(part)}",
            (chain_id, *part),
        ):
            out[str(address)] = TokenFacts(
                name, symbol, None if decimals is None else int(decimals)
            )
    return out


def _generations(w: Writer, chain_id: int, bundles: Sequence[BlockBundle]) -> dict[Any, int]:
    """(webhook, block hash, tx index) -> how many times its event was taken back: a block
    unwound and then indexed again is news again, under a new id."""
    rows = w.query(
        "SELECT webhook_id, block_hash, tx_index, COUNT(*) FROM webhook_outbox"
        " WHERE chain_id = ? AND block_number >= ? AND block_number <= ? AND kind = 'removed'"
        " GROUP BY webhook_id, block_hash, tx_index",
        (chain_id, bundles[0].block.number, bundles[-1].block.number),
    )
    return {(str(r[0]), str(r[1]), int(r[2])): int(r[3]) for r in rows}


def enqueue(w: Writer, chain_id: int, bundles: Sequence[BlockBundle], now_ms: int) -> int:
    """Writes the batch's messages for the chain's active address_activity webhooks (after the
    batch's tokens are written); the count written. Costs one query when no webhook follows
    the chain."""
    if not bundles:
        return 0
    hooks = _hooks(w, chain_id)
    if not hooks:
        return 0
    followers = _followers(w, sorted(hooks), addresses_of(bundles))
    if not followers:
        return 0
    facts = _facts(w, chain_id, bundles)
    generations = _generations(w, chain_id, bundles)
    rows = []
    for bundle in bundles:
        touched = involved(bundle)
        for parts in split(bundle):
            names = touched.get(parts.tx.tx_index, set())
            hits = sorted({h for a in names for h in followers.get(a, ())})
            for hook_id in hits:
                hook = hooks[hook_id]
                if hook.signatures and not hook.signatures & topics0(parts):
                    continue
                block = bundle.block
                generation = generations.get((hook_id, block.hash, parts.tx.tx_index), 0)
                mid = message_id(hook_id, chain_id, block.hash, parts.tx.hash, EVENT, generation)
                body = {
                    "webhookId": hook_id,
                    "eventType": "address_activity",
                    "messageId": mid,
                    "event": event(
                        parts, block.hash, facts, logs=hook.logs, internals=hook.internals
                    ),
                }
                rows.append(
                    (
                        mid, hook_id, chain_id, block.number, block.hash, parts.tx.tx_index,
                        block.timestamp, EVENT, orjson.dumps(body).decode(), now_ms, PENDING,
                        0, now_ms, 0,
                    )
                )  # fmt: skip
    insert(w, rows)
    return len(rows)


_INSERT = (
    "INSERT INTO webhook_outbox (message_id, webhook_id, chain_id, block_number, block_hash,"
    " tx_index, block_timestamp, kind, body, created, state, attempts, next_at, lease_until)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (message_id) DO NOTHING"
)


def insert(w: Writer, rows: Sequence[Sequence[Any]]) -> None:
    w.executemany(_INSERT, rows)


def unwind(w: Writer, chain_id: int, height: int, now_ms: int) -> None:
    """Takes back the messages of blocks >= height (see the module's docstring)."""
    # A message a worker holds (its lease runs) may be on the wire: it counts as tried.
    w.execute(
        "DELETE FROM webhook_outbox WHERE chain_id = ? AND block_number >= ? AND kind = 'event'"
        " AND attempts = 0 AND state = 'pending' AND lease_until <= ?",
        (chain_id, height, now_ms),
    )
    told = w.query(
        "SELECT message_id, webhook_id, block_number, block_hash, tx_index, block_timestamp, body"
        " FROM webhook_outbox WHERE chain_id = ? AND block_number >= ? AND kind = 'event'"
        " AND state <> 'unwound'",
        (chain_id, height),
    )
    w.execute(
        "UPDATE webhook_outbox SET state = 'unwound' WHERE chain_id = ? AND block_number >= ?"
        " AND kind = 'event'",
        (chain_id, height),
    )
    rows = []
    for mid, hook, number, block_hash, tx_index, ts, text in told:
        removed = message_id(mid, REMOVED)
        body = orjson.loads(text)
        body["messageId"] = removed
        body["removed"] = True
        body["removedMessageId"] = mid
        for log in body["event"].get("logs", ()):
            log["removed"] = True
        rows.append(
            (
                removed, hook, chain_id, number, block_hash, tx_index, ts, REMOVED,
                orjson.dumps(body).decode(), now_ms, PENDING, 0, now_ms, 0,
            )
        )  # fmt: skip
    insert(w, rows)


@dataclass(frozen=True, slots=True)
class Claimed:
    """A message a worker holds under its lease, with where and how to send it."""

    message_id: str
    webhook_id: str
    url: str
    secret: str
    body: bytes
    attempts: int
    block_timestamp: int
    created: int


def claim(db: Database, now_ms: int, lease_ms: int, limit: int) -> list[Claimed]:
    """Due messages of active webhooks, oldest block first, leased to the caller until
    now + lease_ms. On PostgreSQL, concurrent workers skip each other's rows (SKIP LOCKED)."""
    lock = " FOR UPDATE OF o SKIP LOCKED" if db.dialect == "postgresql" else ""
    with db.transaction() as w:
        # The bodies are read after the order is settled: sorted along with the due rows,
        # every due body went through the sort (a fan-out's 1,000 bodies at each look).
        rows = w.query(
            "SELECT o.message_id, o.webhook_id, h.url, s.secret, o.attempts,"
            " o.block_timestamp, o.created FROM webhook_outbox o"
            " JOIN webhooks h ON h.id = o.webhook_id AND h.status = 'active'"
            " JOIN webhook_secrets s ON s.owner = h.owner"
            # A revoked API key's webhooks fall silent with it.
            " JOIN api_keys k ON k.id = h.owner AND k.revoked IS NULL"
            " WHERE o.state = 'pending' AND o.next_at <= ? AND o.lease_until <= ?"
            " ORDER BY o.next_at, o.block_number, o.tx_index, o.created LIMIT ?" + lock,
            (now_ms, now_ms, limit),
        )
        bodies: dict[str, str] = {}
        for part in sql.chunks([r[0] for r in rows]):
            marks = sql.in_list(part)
            w.execute(
                f"UPDATE webhook_outbox SET lease_until = ? WHERE message_id IN {marks}",
                (now_ms + lease_ms, *part),
            )
            for mid, body in w.query(
                f"SELECT message_id, body FROM webhook_outbox WHERE message_id IN {marks}", part
            ):
                bodies[str(mid)] = str(body)
    return [
        Claimed(
            str(r[0]),
            str(r[1]),
            str(r[2]),
            str(r[3]),
            bodies[str(r[0])].encode(),
            int(r[4]),
            int(r[5]),
            int(r[6]),
        )
        for r in rows
    ]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one attempt, and what follows from it (webhooks/retry.py decides)."""

    message_id: str
    webhook_id: str
    state: str  # pending (retry at next_at) | delivered | failed
    attempts: int
    next_at: int
    status: int | None  # the receiver's HTTP status, None when it gave none
    error: str | None
    latency_ms: int
    at_ms: int
    entered_queue: bool  # this failure sends the message to the retry queue
    failed_first: bool  # it failed both first attempts
    deactivate: str | None  # deactivate the webhook, with this reason


def record(db: Database, outcomes: Sequence[Outcome]) -> None:
    """Stores the outcomes of attempts, in one transaction (a worker batches them: one commit
    per message would bound deliveries/s by the store's commit rate)."""
    if not outcomes:
        return
    with db.transaction() as w:
        w.executemany(
            "UPDATE webhook_outbox SET state = ?, attempts = ?, next_at = ?, lease_until = 0,"
            " last_status = ?, last_error = ?, last_latency_ms = ?, delivered_at = ?"
            " WHERE message_id = ? AND state = 'pending'",
            [
                (
                    o.state,
                    o.attempts,
                    o.next_at,
                    o.status,
                    o.error,
                    o.latency_ms,
                    o.at_ms if o.state == DELIVERED else None,
                    o.message_id,
                )
                for o in outcomes
            ],
        )
        w.executemany(
            "UPDATE webhooks SET queued = queued + ?, failed_first = failed_first + ? WHERE id = ?",
            [
                (int(o.entered_queue), int(o.failed_first), o.webhook_id)
                for o in outcomes
                if o.entered_queue or o.failed_first
            ],
        )
        w.executemany(
            "UPDATE webhooks SET status = 'inactive', deactivated_reason = ? WHERE id = ?",
            [(o.deactivate, o.webhook_id) for o in outcomes if o.deactivate is not None],
        )


def counters(db: Database, webhook_id: str) -> tuple[int, int]:
    """(failed_first, queued) of the webhook."""
    row = db.query_one("SELECT failed_first, queued FROM webhooks WHERE id = ?", (webhook_id,))
    return (0, 0) if row is None else (int(row[0]), int(row[1]))


@dataclass(frozen=True, slots=True)
class Delivery:
    """One row of a webhook's delivery log."""

    message_id: str
    kind: str
    chain_id: int
    block_number: int
    tx_index: int
    state: str
    attempts: int
    next_at: int
    created: int
    last_status: int | None
    last_error: str | None
    latency_ms: int | None
    delivered_at: int | None


def deliveries(db: Database, webhook_id: str, after: Key | None, limit: int) -> Page[Delivery]:
    """The webhook's messages, newest block first."""
    cond, extra = sql.keyset("block_number, tx_index, message_id", True, after)
    rows = db.query(
        "SELECT message_id, kind, chain_id, block_number, tx_index, state, attempts, next_at,"
        " created, last_status, last_error, last_latency_ms, delivered_at FROM webhook_outbox"
        f" WHERE webhook_id = ?{cond}{sql.order('block_number, tx_index, message_id', True)}"
        " LIMIT ?",
        (webhook_id, *extra, limit + 1),
    )
    items = [Delivery(*r) for r in rows]
    return page_of(items, limit, lambda d: (d.block_number, d.tx_index, d.message_id))


def replay(db: Database, webhook_id: str, from_block: int, now_ms: int) -> int:
    """Sends the webhook's messages of blocks >= from_block again (same ids, so receivers that
    already have them can tell); the count queued."""
    with db.transaction() as w:
        return w.execute(
            "UPDATE webhook_outbox SET state = 'pending', attempts = 0, next_at = ?,"
            " lease_until = 0 WHERE webhook_id = ? AND block_number >= ?"
            " AND state IN ('delivered', 'failed')",
            (now_ms, webhook_id, from_block),
        )


_HEARTBEAT = "webhook_worker_seen"


def heartbeat(db: Database, now_ms: int) -> None:
    """A delivery worker is running (GET /v1/chains lists `webhooks` only while one is)."""
    with db.transaction() as w:
        w.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (_HEARTBEAT, str(now_ms)),
        )


def worker_seen(db: Database) -> int | None:
    """When a delivery worker last said it runs (ms), None if never."""
    value = db.meta(_HEARTBEAT)
    return None if value is None else int(value)


def delivering_chains(db: Database, now_ms: int, within_ms: int) -> set[int]:
    """The EVM chains whose deliveries work now: indexed here (the writer fills their outbox)
    while a delivery worker was seen within `within_ms`."""
    seen = worker_seen(db)
    if seen is None or now_ms - seen > within_ms:
        return set()
    return {int(r[0]) for r in db.query("SELECT chain_id FROM checkpoints")}
