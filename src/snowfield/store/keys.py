"""API keys of the data service: create, list, revoke, look up; only a key's SHA-256 is stored."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store.database import Database

KEY_PREFIX = "sfk_"
_COLS = "id, name, created, revoked, chains, rate_per_minute"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """What the service knows of a key; `chains` None means every chain."""

    id: str
    name: str
    created: int
    revoked: int | None
    chains: tuple[int, ...] | None
    rate_per_minute: int | None

    @property
    def active(self) -> bool:
        return self.revoked is None

    def allows(self, chain_id: int) -> bool:
        return self.chains is None or chain_id in self.chains


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _key(r: tuple[Any, ...]) -> ApiKey:
    chains = None if r[4] is None else tuple(int(c) for c in str(r[4]).split(",") if c)
    return ApiKey(r[0], r[1], r[2], r[3], chains, r[5])


def create_key(
    db: Database,
    name: str,
    *,
    chains: Sequence[int] | None = None,
    rate_per_minute: int | None = None,
    clock: Callable[[], float] = time.time,
) -> tuple[ApiKey, str]:
    """A new key and its secret; the secret is shown once and never stored."""
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(
        secrets.token_hex(8),
        name,
        int(clock()),
        None,
        None if chains is None else tuple(sorted(set(chains))),
        rate_per_minute,
    )
    with db.transaction() as w:
        w.execute(
            "INSERT INTO api_keys (id, key_hash, name, created, revoked, chains, rate_per_minute)"
            " VALUES (?, ?, ?, ?, NULL, ?, ?)",
            (
                key.id,
                _digest(secret),
                key.name,
                key.created,
                None if key.chains is None else ",".join(map(str, key.chains)),
                key.rate_per_minute,
            ),
        )
    return key, secret


def list_keys(db: Database) -> list[ApiKey]:
    return [_key(r) for r in db.query(f"SELECT {_COLS} FROM api_keys ORDER BY created, id")]


def revoke_key(db: Database, key_id: str, *, clock: Callable[[], float] = time.time) -> bool:
    """Revokes a key by id; False when no active key has that id."""
    with db.transaction() as w:
        changed = w.execute(
            "UPDATE api_keys SET revoked = ? WHERE id = ? AND revoked IS NULL",
            (int(clock()), key_id),
        )
    return changed > 0


def lookup_key(db: Database, secret: str) -> ApiKey | None:
    """The key whose secret this is (revoked or not), or None."""
    row = db.query_one(f"SELECT {_COLS} FROM api_keys WHERE key_hash = ?", (_digest(secret),))
    return None if row is None else _key(row)
