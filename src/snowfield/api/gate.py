"""The gate in front of every route: API key check (401), rate limit (429) and its headers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from snowfield.api.errors import error_response
from snowfield.api.openapi import API_KEY_HEADER
from snowfield.api.operation import API_KEY_STATE
from snowfield.api.ratelimit import Decision, Limiter, sending_headers
from snowfield.errors import RateLimited, Unauthorized
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey, lookup_key


@dataclass(frozen=True, slots=True)
class RatePolicy:
    """Compute units per window: anonymous callers by IP, keyed callers by key."""

    anonymous: int = 6000
    keyed: int = 8000

    def limit_for(self, key: ApiKey | None) -> int:
        if key is None:
            return self.anonymous
        return key.rate_per_minute if key.rate_per_minute is not None else self.keyed


_KEY_HEADER = API_KEY_HEADER.lower().encode("latin-1")  # ASGI header names are lower-case


class Gate:
    def __init__(
        self,
        app: ASGIApp,
        *,
        db: Database,
        limiter: Limiter,
        policy: RatePolicy,
        weight: Callable[[Scope], int],
    ) -> None:
        self.app = app
        self.db = db
        self.limiter = limiter
        self.policy = policy
        self.weight = weight

    async def _key(self, secret: bytes) -> tuple[ApiKey | None, bool]:
        """The key sent, and whether it is unknown or revoked."""
        key = await run_in_threadpool(lookup_key, self.db, secret.decode("latin-1"))
        if key is None or not key.active:
            return None, True
        return key, False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        decision: Decision | None = None
        try:
            key, refused = None, False
            for name, value in scope["headers"]:
                if name == _KEY_HEADER and value:
                    key, refused = await self._key(value)
                    break
            # A refused key is charged to the caller's IP, which also slows key guessing.
            client = scope.get("client")
            identity = f"key:{key.id}" if key else f"ip:{client[0] if client else 'unknown'}"
            decision = await self.limiter.charge(
                identity, self.weight(scope), self.policy.limit_for(key)
            )
            if not decision.allowed:
                raise RateLimited("rate limit exceeded", retry_after=decision.reset)
            if refused:
                raise Unauthorized("unknown or revoked API key")
        except Exception as exc:
            headers = decision.headers() if decision is not None else {}
            await error_response(exc, headers)(scope, receive, send)
            return
        state = {**scope.get("state", {}), API_KEY_STATE: key}
        extra = decision.raw_headers()
        await self.app({**scope, "state": state}, receive, sending_headers(send, extra))
