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
        self._identities: dict[str, str] = {}  # see _anonymous

    def admit_now(self, scope: Scope, weight: int) -> Admission | None:
        """`admit` without awaiting anything, for a caller who sent no key, when the limiter
        decides at once (in memory); None otherwise, having charged nothing. Served, the gate
        cost operation 5 about 7% of its requests/s (taken out, side by side, bench/api.py's
        2M store), four times its 2 us in a hot loop; its two coroutines less measured +0.6%
        (within the method's noise), the identity kept by address (`_anonymous`) 1-2%."""
        if self.keys and _sent_key(scope) is not None:
            return None
        try:
            identity = self._anonymous(scope)
            decision = self.limiter.charge_now(identity, weight, self.policy.anonymous)
        except Exception as exc:
            return Admission(None, [], exc)
        return None if decision is None else _verdict(None, False, decision)

    async def admit(self, scope: Scope, weight: int) -> Admission:
        """Checks the key sent (if any) and charges `weight` units to the caller."""
        try:
            key, refused = None, False
            sent = _sent_key(scope) if self.keys else None
            if sent is not None:
                key, refused = await self._key(sent)
            # A refused key is charged to the caller's IP, which also slows key guessing.
            identity = f"{self.prefix}key:{key.id}" if key else self._anonymous(scope)
            decision = await self.limiter.charge(identity, weight, self.policy.limit_for(key))
        except Exception as exc:
            return Admission(None, [], exc)
        return _verdict(key, refused, decision)

    def _anonymous(self, scope: Scope) -> str:
        """The identity of a caller without a key: its address. Kept by address (bounded):
        the limiter's key is then one string, hashed once, not a new one a request (1-2% of
        operation 5's requests/s served side by side)."""
        client = scope.get("client")
        host = client[0] if client else "unknown"
        found = self._identities.get(host)
        if found is None:
            if len(self._identities) >= 4096:  # addresses are whatever connects: bounded
                self._identities.clear()
            found = self._identities[host] = f"{self.prefix}ip:{host}"
        return found

    async def _key(self, secret: bytes) -> tuple[ApiKey | None, bool]:
        """The key sent, and whether it is unknown or revoked."""
        key = await run_in_threadpool(lookup_key, self.db, secret.decode("latin-1"))
        if key is None or not key.active:
            return None, True
        return key, False


def _sent_key(scope: Scope) -> bytes | None:
    """The API key the request sent (its first non-empty key header), if any."""
    for name, value in scope["headers"]:
        if name == _KEY_HEADER and value:
            return bytes(value)
    return None


def _verdict(key: ApiKey | None, refused: bool, decision: Decision) -> Admission:
    """The admission a charge's decision makes: over the limit (429) before a refused key
    (401), each answer with the rate-limit headers."""
    if not decision.allowed:
        refusal = RateLimited("rate limit exceeded", retry_after=decision.reset)
        return Admission(None, decision.raw_headers(), refusal)
    if refused:
        return Admission(None, decision.raw_headers(), Unauthorized("unknown or revoked API key"))
    return Admission(key, decision.raw_headers())
