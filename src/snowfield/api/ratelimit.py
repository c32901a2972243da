"""Rate limiting in compute units per fixed window: one interface, in-memory and Redis backends."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from snowfield.errors import Unavailable

Clock = Callable[[], float]


@dataclass(slots=True)
class Decision:
    """The outcome of one charge: allowed or not, and what the caller has left. One is made
    for every request: not frozen, whose __init__ sets each field through object.__setattr__
    (0.59 against 0.25 us here)."""

    allowed: bool
    limit: int
    remaining: int
    reset: float  # seconds until the window ends
    window: int

    def headers(self) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.raw_headers()}

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """The rate-limit headers as ASGI sends them: every response carries the policy, the
        limit and what remains (IETF draft, as the real service sends them); a refusal (429)
        adds when the window resets (the error adds `retry-after` with the same seconds)."""
        out = [*_fixed_headers(self.limit, self.window)]
        out.append((b"ratelimit-remaining", b"%d" % self.remaining))
        if not self.allowed:
            out.append((b"ratelimit-reset", b"%d" % max(1, math.ceil(self.reset))))
        return out


@functools.lru_cache(maxsize=256)
def _fixed_headers(limit: int, window: int) -> tuple[tuple[bytes, bytes], ...]:
    """The headers that change only with the caller's policy (its limit and window)."""
    return (
        (b"ratelimit-policy", b"%d;w=%d" % (limit, window)),
        (b"ratelimit-limit", b"%d" % limit),
    )


class Limiter(Protocol):
    """Charges `cost` units to `identity`; a refused charge consumes nothing."""

    async def charge(self, identity: str, cost: int, limit: int) -> Decision: ...

    def charge_now(self, identity: str, cost: int, limit: int) -> Decision | None:
        """The charge made without waiting, by a limiter that can (in-memory counters); None
        from one that must wait (`charge`), which then has charged nothing."""
        ...

    async def close(self) -> None: ...


class MemoryLimiter:
    """Per-process counters; right for a single API process."""

    def __init__(self, *, window: int = 60, clock: Clock = time.time) -> None:
        self.window = window
        self._clock = clock
        self._used: dict[str, tuple[int, int]] = {}  # identity -> (window index, units used)

    async def charge(self, identity: str, cost: int, limit: int) -> Decision:
        return self.charge_now(identity, cost, limit)

    def charge_now(self, identity: str, cost: int, limit: int) -> Decision:
        now = self._clock()
        index = int(now // self.window)
        start, used = self._used.get(identity, (index, 0))
        if start != index:
            used = 0
            if len(self._used) > 100_000:  # forget idle callers instead of growing forever
                self._used = {k: v for k, v in self._used.items() if v[0] == index}
        allowed = used + cost <= limit
        if allowed:
            used += cost
        self._used[identity] = (index, used)
        reset = (index + 1) * self.window - now
        return Decision(allowed, limit, max(0, limit - used), reset, self.window)

    async def close(self) -> None:
        self._used.clear()


# Check and add in one step on the server, so concurrent API processes cannot both pass.
_CHARGE = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[1])
if used + cost > tonumber(ARGV[2]) then return {0, used} end
used = redis.call('INCRBY', KEYS[1], cost)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {1, used}
"""


class RedisLimiter:
    """Counters in Redis, shared by every API process that uses the same URL and prefix."""

    def __init__(
        self, url: str, *, prefix: str = "snowfield:rl:", window: int = 60, clock: Clock = time.time
    ) -> None:
        self.window = window
        self._prefix = prefix
        self._clock = clock
        self._redis: Any = aioredis.Redis.from_url(url)
        self._script = self._redis.register_script(_CHARGE)

    async def charge(self, identity: str, cost: int, limit: int) -> Decision:
        now = self._clock()
        index = int(now // self.window)
        key = f"{self._prefix}{identity}:{index}"
        try:
            allowed, used = await self._script(keys=[key], args=[cost, limit, self.window + 1])
        except RedisError as exc:
            raise Unavailable(f"rate limiter unavailable: {exc}") from exc
        reset = (index + 1) * self.window - now
        return Decision(bool(allowed), limit, max(0, limit - int(used)), reset, self.window)

    def charge_now(self, identity: str, cost: int, limit: int) -> None:
        return None  # the counters are on the Redis server

    async def close(self) -> None:
        await self._redis.aclose()
