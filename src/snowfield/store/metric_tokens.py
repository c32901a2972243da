"""Page tokens of the metrics service: random UUIDs naming a stored cursor for 24 hours."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from snowfield.store.database import Database

TOKEN_LIFETIME = 24 * 3600


@dataclass(frozen=True, slots=True)
class StoredToken:
    created: int
    scope: str  # hash of the query the token continues
    cursor: int  # bucket start: the next page holds strictly older buckets


def save_token(db: Database, scope: str, cursor: int, now: int) -> str:
    """A new token for `cursor`; tokens long expired are dropped on the way."""
    token = str(uuid.uuid4())
    with db.transaction() as w:
        # Housekeeping: an unknown token restarts from page one just as an expired one does.
        w.execute("DELETE FROM metric_page_tokens WHERE created < ?", (now - 2 * TOKEN_LIFETIME,))
        w.execute(
            "INSERT INTO metric_page_tokens (token, created, scope, cursor) VALUES (?, ?, ?, ?)",
            (token, now, scope, cursor),
        )
    return token


def load_token(db: Database, token: str) -> StoredToken | None:
    row = db.query_one(
        "SELECT created, scope, cursor FROM metric_page_tokens WHERE token = ?", (token,)
    )
    return None if row is None else StoredToken(int(row[0]), str(row[1]), int(row[2]))
