"""Webhook subscriptions of API keys: create, read, list, update, their addresses and the key's
shared secret. Every read and change is scoped to the owning key: another key's webhook is
simply not found."""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from snowfield.store import sql
from snowfield.store.database import Database, Writer
from snowfield.store.pagination import Key, Page, page_of

ACTIVE, INACTIVE = "active", "inactive"
_COLUMNS = (
    "id, owner, event_type, url, name, description, chain_ref, evm_chain, network, status,"
    " created, include_logs, include_internal, metadata, failed_first, queued, deactivated_reason"
)


@dataclass(frozen=True, slots=True)
class WebhookRow:
    """One webhook; `metadata` is its event type's metadata without the addresses."""

    id: str
    owner: str
    event_type: str
    url: str
    name: str
    description: str
    chain_ref: str
    evm_chain: int | None
    network: str | None
    status: str
    created: int  # Unix seconds
    include_logs: bool
    include_internal: bool
    metadata: dict[str, Any] = field(default_factory=dict)
    failed_first: int = 0
    queued: int = 0
    deactivated_reason: str | None = None


def _row(r: Sequence[Any]) -> WebhookRow:
    return WebhookRow(
        str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), str(r[6]),
        None if r[7] is None else int(r[7]), r[8], str(r[9]), int(r[10]), bool(r[11]),
        bool(r[12]), orjson.loads(r[13]), int(r[14]), int(r[15]), r[16],
    )  # fmt: skip


def create_webhook(
    db: Database,
    hook: WebhookRow,
    addresses: Sequence[str],
    *,
    clock: Callable[[], float] = time.time,
) -> WebhookRow:
    """Stores `hook` under a new id (its `id` and `created` are replaced) with its addresses."""
    made = WebhookRow(
        str(uuid.uuid4()), hook.owner, hook.event_type, hook.url, hook.name, hook.description,
        hook.chain_ref, hook.evm_chain, hook.network, ACTIVE, int(clock()), hook.include_logs,
        hook.include_internal, hook.metadata,
    )  # fmt: skip
    with db.transaction() as w:
        w.execute(
            f"INSERT INTO webhooks ({_COLUMNS}) VALUES ({', '.join('?' * 17)})",
            (
                made.id, made.owner, made.event_type, made.url, made.name, made.description,
                made.chain_ref, made.evm_chain, made.network, made.status, made.created,
                int(made.include_logs), int(made.include_internal),
                orjson.dumps(made.metadata).decode(), 0, 0, None,
            ),
        )  # fmt: skip
        _add(w, made.id, addresses)
    return made


def get_webhook(db: Database, owner: str, webhook_id: str) -> WebhookRow | None:
    row = db.query_one(
        f"SELECT {_COLUMNS} FROM webhooks WHERE owner = ? AND id = ?", (owner, webhook_id)
    )
    return None if row is None else _row(row)


def webhook_by_id(db: Database, webhook_id: str) -> WebhookRow | None:
    """Any key's webhook (the worker's view)."""
    row = db.query_one(f"SELECT {_COLUMNS} FROM webhooks WHERE id = ?", (webhook_id,))
    return None if row is None else _row(row)


def list_webhooks(
    db: Database, owner: str, status: str | None, after: Key | None, limit: int
) -> Page[WebhookRow]:
    """The key's webhooks, newest first (created, then id)."""
    where, params = "owner = ?", [owner]
    if status is not None:
        where, params = where + " AND status = ?", [*params, status]
    cond, extra = sql.keyset("created, id", True, after)
    rows = db.query(
        f"SELECT {_COLUMNS} FROM webhooks WHERE {where}{cond}"
        f"{sql.order('created, id', True)} LIMIT ?",
        (*params, *extra, limit + 1),
    )
    return page_of([_row(r) for r in rows], limit, lambda h: (h.created, h.id))


def update_webhook(db: Database, owner: str, webhook_id: str, changes: dict[str, Any]) -> bool:
    """Sets the given columns (names of this table) of the key's webhook; False when none."""
    if not changes:
        return get_webhook(db, owner, webhook_id) is not None
    sets = ", ".join(f"{column} = ?" for column in changes)
    with db.transaction() as w:
        return (
            w.execute(
                f"UPDATE webhooks SET {sets} WHERE owner = ? AND id = ?",
                (*changes.values(), owner, webhook_id),
            )
            > 0
        )


def _add(w: Writer, webhook_id: str, addresses: Sequence[str]) -> None:
    w.executemany(
        "INSERT INTO webhook_addresses (webhook_id, address) VALUES (?, ?)"
        " ON CONFLICT (webhook_id, address) DO NOTHING",
        [(webhook_id, a) for a in dict.fromkeys(addresses)],
    )


def add_addresses(db: Database, webhook_id: str, addresses: Sequence[str]) -> None:
    with db.transaction() as w:
        _add(w, webhook_id, addresses)


def remove_addresses(db: Database, webhook_id: str, addresses: Sequence[str]) -> None:
    with db.transaction() as w:
        for part in sql.chunks(sorted(set(addresses))):
            w.execute(
                f"DELETE FROM webhook_addresses WHERE webhook_id = ? AND address IN"
                f" {sql.in_list(part)}",
                (webhook_id, *part),
            )


def addresses(db: Database, webhook_id: str, after: Key | None, limit: int) -> Page[str]:
    cond, extra = sql.keyset("address", False, after)
    rows = db.query(
        f"SELECT address FROM webhook_addresses WHERE webhook_id = ?{cond}"
        " ORDER BY address LIMIT ?",
        (webhook_id, *extra, limit + 1),
    )
    return page_of([str(r[0]) for r in rows], limit, lambda a: (a,))


def all_addresses(db: Database, webhook_id: str) -> list[str]:
    rows = db.query(
        "SELECT address FROM webhook_addresses WHERE webhook_id = ? ORDER BY address",
        (webhook_id,),
    )
    return [str(r[0]) for r in rows]


def count_addresses(db: Database, webhook_id: str) -> int:
    row = db.query_one("SELECT COUNT(*) FROM webhook_addresses WHERE webhook_id = ?", (webhook_id,))
    return 0 if row is None else int(row[0])


def shared_secret(db: Database, owner: str) -> str | None:
    row = db.query_one("SELECT secret FROM webhook_secrets WHERE owner = ?", (owner,))
    return None if row is None else str(row[0])


def rotate_secret(db: Database, owner: str, *, clock: Callable[[], float] = time.time) -> str:
    """A new secret for the key (replacing any): deliveries from now on are signed with it."""
    secret = secrets.token_hex(32)
    with db.transaction() as w:
        w.execute(
            "INSERT INTO webhook_secrets (owner, secret, created) VALUES (?, ?, ?)"
            " ON CONFLICT (owner) DO UPDATE SET secret = excluded.secret,"
            " created = excluded.created",
            (owner, secret, int(clock())),
        )
    return secret


def ensure_secret(db: Database, owner: str) -> str:
    """The key's secret, made on first need (a webhook is never sent unsigned)."""
    return shared_secret(db, owner) or rotate_secret(db, owner)
