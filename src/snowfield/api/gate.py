"""The gate every request passes first: API key check (401), rate limit (429) and the
rate-limit headers every answer carries."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.types import Scope

from snowfield.api.openapi import API_KEY_HEADER
from snowfield.api.ratelimit import Decision, Limiter
from snowfield.errors import RateLimited, Unauthorized
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey, lookup_key

_KEY_HEADER = API_KEY_HEADER.lower().encode("latin-1")  # ASGI header names are lower-case


@dataclass(frozen=True, slots=True)
class RatePolicy:
    """Compute units per window: anonymous callers by IP, keyed callers by key."""

    anonymous: int = 6000
    keyed: int = 8000

    def limit_for(self, key: ApiKey | None) -> int:
        if key is None:
            return self.anonymous
        return key.rate_per_minute if key.rate_per_minute is not None else self.keyed


@dataclass(slots=True)
class Admission:
    """The gate's verdict: the caller's key, the rate-limit headers for the answer, and the
    refusal to answer with instead of the route, if any. One a request: not frozen (see
    ratelimit.Decision)."""

    key: ApiKey | None
    headers: list[tuple[bytes, bytes]]
    refusal: Exception | None = None


class Gate:
    """`keys`: whether callers may send an API key (the metrics service has none, and ignores
    the header); `prefix` keeps a service's counters apart from another's in a shared limiter."""

    def __init__(
        self,
        *,
        db: Database,
        limiter: Limiter,
        policy: RatePolicy,
        keys: bool = True,
        prefix: str = "",
    ) -> None:
        self.db = db
        self.limiter = limiter
        self.policy = policy
        self.keys = keys
        self.prefix = prefix

    async def admit(self, scope: Scope, weight: int) -> Admission:
        """Checks the key sent (if any) and charges `weight` units to the caller."""
        decision: Decision | None = None
        try:
            key, refused = None, False
            for name, value in scope["headers"] if self.keys else ():
                if name == _KEY_HEADER and value:
                    key, refused = await self._key(value)
                    break
            # A refused key is charged to the caller's IP, which also slows key guessing.
            client = scope.get("client")
            caller = f"key:{key.id}" if key else f"ip:{client[0] if client else 'unknown'}"
            identity = self.prefix + caller
            decision = await self.limiter.charge(identity, weight, self.policy.limit_for(key))
            if not decision.allowed:
                raise RateLimited("rate limit exceeded", retry_after=decision.reset)
            if refused:
                raise Unauthorized("unknown or revoked API key")
        except Exception as exc:
            return Admission(None, decision.raw_headers() if decision else [], exc)
        return Admission(key, decision.raw_headers())

    async def _key(self, secret: bytes) -> tuple[ApiKey | None, bool]:
        """The key sent, and whether it is unknown or revoked."""
        key = await run_in_threadpool(lookup_key, self.db, secret.decode("latin-1"))
        if key is None or not key.active:
            return None, True
        return key, False
