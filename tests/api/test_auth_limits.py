"""API keys (401 unknown or revoked, 403 other chain) and rate limits (429, headers, Redis)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator

import httpx
import pytest
import redis

from snowfield.api.app import OPERATIONS
from snowfield.api.gate import RatePolicy
from snowfield.api.ratelimit import MemoryLimiter, RedisLimiter
from snowfield.store.database import Database
from snowfield.store.keys import create_key, revoke_key
from tests.api.conftest import (
    ALICE,
    BLOCKCHAIN_ID,
    CHAIN,
    OTHER_CHAIN,
    api_client,
    assert_error,
    frozen_clock,
)

REDIS_URL = "redis://127.0.0.1:6379/0"
HEADER = "x-service-api-key"
TXS = f"/v1/chains/{CHAIN}/addresses/{ALICE}/transactions"


def test_keys_unknown_revoked_and_restricted(filled: Database) -> None:
    key, secret = create_key(filled, "test")
    limited, limited_secret = create_key(filled, "other chain only", chains=[OTHER_CHAIN])
    with api_client(filled, policy=RatePolicy(anonymous=1000, keyed=5000)) as client:
        anonymous = client.get(TXS)
        assert anonymous.status_code == 200 and anonymous.headers["ratelimit-limit"] == "1000"
        keyed = client.get(TXS, headers={HEADER: secret})
        assert keyed.status_code == 200 and keyed.headers["ratelimit-limit"] == "5000"
        assert_error(client.get(TXS, headers={HEADER: "sfk_not-a-key"}), 401, "API key")
        assert_error(client.get(TXS, headers={HEADER: limited_secret}), 403, "chain")
        # The same chain named by its blockchain id: the same 403, not a 404 "not supported".
        by_blockchain_id = f"/v1/chains/{BLOCKCHAIN_ID}/addresses/{ALICE}/transactions"
        assert client.get(by_blockchain_id, headers={HEADER: secret}).status_code == 200
        assert_error(client.get(by_blockchain_id, headers={HEADER: limited_secret}), 403, "chain")
        for op in OPERATIONS:
            path_chain = any(p.name == "chainId" and p.where == "path" for p in op.params)
            if not path_chain or op.method != "GET":
                continue
            path = op.path.replace("{chainId}", BLOCKCHAIN_ID).replace("{address}", ALICE)
            path = path.replace("{blockId}", "1").replace("{txHash}", "0x" + "ab" * 32)
            path = path.replace("{tokenId}", "1")
            assert "{" not in path, path
            allowed = client.get(path, headers={HEADER: secret})
            assert allowed.status_code != 403, path
            refused = client.get(path, headers={HEADER: limited_secret})
            assert refused.status_code == 403, (path, refused.text)
        other = client.get(
            f"/v1/chains/{OTHER_CHAIN}/addresses/{ALICE}/transactions",
            headers={HEADER: limited_secret},
        )
        assert other.status_code == 200 and other.json() == {"transactions": []}
        assert revoke_key(filled, key.id) and not revoke_key(filled, key.id)
        assert_error(client.get(TXS, headers={HEADER: secret}), 401, "API key")
    assert limited.chains == (OTHER_CHAIN,)


def test_429_with_headers_when_the_budget_is_spent(filled: Database) -> None:
    with api_client(filled, policy=RatePolicy(anonymous=3, keyed=100)) as client:
        seen = []
        for _ in range(3):
            response = client.get("/v1/chains")  # 1 compute unit
            assert response.status_code == 200
            assert response.headers["ratelimit-policy"] == "3;w=60"
            seen.append(int(response.headers["ratelimit-remaining"]))
        assert seen == [2, 1, 0]
        refused = client.get("/v1/chains")
        assert_error(refused, 429)
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert refused.headers["ratelimit-limit"] == "3"
        assert refused.headers["ratelimit-remaining"] == "0"
        assert 1 <= int(refused.headers["ratelimit-reset"]) <= 60
        # Medium routes cost 20 units: more than this caller has left at all.
        assert_error(client.get(TXS), 429)


def test_keys_get_their_own_higher_budget(filled: Database) -> None:
    _, secret = create_key(filled, "rated", rate_per_minute=40)
    _, default_secret = create_key(filled, "default")
    with api_client(filled, policy=RatePolicy(anonymous=20, keyed=60)) as client:
        assert client.get(TXS).status_code == 200
        assert_error(client.get(TXS), 429)  # the anonymous budget is one medium call
        statuses = [client.get(TXS, headers={HEADER: secret}).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]
        statuses = [client.get(TXS, headers={HEADER: default_secret}).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]


def test_refused_keys_spend_the_callers_ip_budget(filled: Database) -> None:
    with api_client(filled, policy=RatePolicy(anonymous=2, keyed=100)) as client:
        for _ in range(2):
            assert_error(client.get("/v1/chains", headers={HEADER: "guess"}), 401)
        assert_error(client.get("/v1/chains", headers={HEADER: "guess"}), 429)


def test_memory_limiter_windows_follow_the_clock() -> None:
    now = [120.0]
    limiter = MemoryLimiter(window=60, clock=lambda: now[0])

    async def run() -> list[bool]:
        out = [(await limiter.charge("ip:a", 20, 40)).allowed for _ in range(3)]
        out.append((await limiter.charge("ip:b", 20, 40)).allowed)  # callers are separate
        now[0] = 180.5  # next window
        decision = await limiter.charge("ip:a", 20, 40)
        assert decision.remaining == 20 and decision.reset == pytest.approx(59.5)
        out.append(decision.allowed)
        return out

    assert asyncio.run(run()) == [True, True, False, True, True]


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix of its own on the Redis at REDIS_URL; these tests of the scale path run
    where SNOWFIELD_TEST_REDIS is set (CI sets it), as PostgreSQL's run with SNOWFIELD_TEST_PG."""
    if not os.environ.get("SNOWFIELD_TEST_REDIS"):
        pytest.skip("set SNOWFIELD_TEST_REDIS=1 to test against Redis at 127.0.0.1:6379")
    prefix = f"snowfield-test:{uuid.uuid4().hex}:"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(match=prefix + "*"):
        client.delete(key)
    client.close()


def test_redis_limiter_is_shared_by_two_app_instances(filled: Database, redis_prefix: str) -> None:
    policy = RatePolicy(anonymous=40, keyed=100)
    with (
        api_client(
            filled,
            policy=policy,
            limiter=RedisLimiter(REDIS_URL, prefix=redis_prefix, clock=frozen_clock),
        ) as a,
        api_client(
            filled,
            policy=policy,
            limiter=RedisLimiter(REDIS_URL, prefix=redis_prefix, clock=frozen_clock),
        ) as b,
    ):
        assert a.get(TXS).status_code == 200
        second = b.get(TXS)
        assert second.status_code == 200 and second.headers["ratelimit-remaining"] == "0"
        assert_error(a.get(TXS), 429)
        assert_error(b.get(TXS), 429)
    keys = list(redis.Redis.from_url(REDIS_URL).scan_iter(match=redis_prefix + "*"))
    assert len(keys) == 1  # one counter: the caller's IP in this window


def test_redis_limiter_windows_follow_the_clock(redis_prefix: str) -> None:
    now = [600.0]

    async def run() -> list[bool]:
        limiter = RedisLimiter(REDIS_URL, prefix=redis_prefix, clock=lambda: now[0])
        try:
            out = [(await limiter.charge("key:k", 30, 50)).allowed for _ in range(2)]
            now[0] = 660.0
            out.append((await limiter.charge("key:k", 30, 50)).allowed)
            return out
        finally:
            await limiter.close()

    assert asyncio.run(run()) == [True, False, True]


def test_unreachable_redis_is_503_in_shape(filled: Database) -> None:
    limiter = RedisLimiter("redis://127.0.0.1:1/0")
    with api_client(filled, limiter=limiter) as client:
        assert_error(client.get("/v1/chains"), 503, "rate limiter")


def test_every_response_carries_rate_headers(filled: Database) -> None:
    with api_client(filled) as client:
        for path in ("/v1/chains", TXS, "/v1/unknown", "/v1/chains/1/blocks/1/transactions"):
            response: httpx.Response = client.get(path)
            for name in ("ratelimit-limit", "ratelimit-remaining", "ratelimit-policy"):
                assert name in response.headers, (path, name)
            # As the real service: the reset and retry-after come with a 429 only.
            assert "ratelimit-reset" not in response.headers, path
            assert "retry-after" not in response.headers, path
