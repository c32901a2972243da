"""What makes a fan-out fast without losing a guarantee: POSTs to one host capped (kept-alive
connections reused) while another host is not held up, messages claimed ahead of the POST
slots only as far as their leases allow, and URL policy decisions cached per policy and
address. Real store, real receivers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import ipaddress
import logging

import pytest

from snowfield.store import webhook_outbox
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.webhooks.policy import Refused, UrlPolicy
from snowfield.webhooks.worker import WorkerConfig
from tests.api.conftest import CAROL, ChainBuilder, add_chains
from tests.webhooks.receiver import receiver
from tests.webhooks.test_delivery import LOOPBACK, Clock, _hook, _once, _worker

SLOW_S = 0.4


def test_a_hosts_cap_sends_its_fan_out_in_waves_and_another_host_is_not_held_up(
    db: Database,
) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    with receiver() as busy, receiver() as other:
        busy.answer = lambda n: (200, SLOW_S)
        hooks = [_hook(db, key.id, busy.url, [CAROL]) for _ in range(6)]
        _hook(db, key.id, other.url, [CAROL])
        ChainBuilder(db).add(1)  # one message for each of the 7 webhooks
        asyncio.run(_once(_worker(db, Clock(), per_host=2, timeout=5)))
        arrivals = sorted(r.at for r in busy.received)
        assert len(arrivals) == 6 and len(other.received) == 1
        # Two at a time: the third POST left only when one of the first two was answered.
        assert arrivals[2] - arrivals[0] >= SLOW_S * 0.8
        assert arrivals[4] - arrivals[0] >= 2 * SLOW_S * 0.8
        # The other host (another port) had its own slots: it was not queued behind the waves.
        assert other.received[0].at < arrivals[0] + SLOW_S * 0.8
        for hook in hooks:
            [row] = webhook_outbox.deliveries(db, hook.id, None, 5).items
            assert row.state == "delivered"


def test_without_the_cap_the_same_fan_out_goes_at_once(db: Database) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    with receiver() as busy:
        busy.answer = lambda n: (200, SLOW_S)
        for _ in range(6):
            _hook(db, key.id, busy.url, [CAROL])
        ChainBuilder(db).add(1)
        asyncio.run(_once(_worker(db, Clock(), per_host=6, timeout=5)))
        arrivals = sorted(r.at for r in busy.received)
        assert len(arrivals) == 6 and arrivals[5] - arrivals[0] < SLOW_S * 0.8


def test_messages_are_held_ahead_only_as_far_as_their_leases_allow() -> None:
    # Held messages wait at most `rounds` answer deadlines for a POST slot, within half a
    # lease, even if all go to one host (`per_host` slots).
    assert WorkerConfig(concurrency=256, per_host=64, lease=120, timeout=10).hold() == 4 * 64
    assert WorkerConfig(concurrency=16, per_host=64, lease=120, timeout=10).hold() == 4 * 16
    assert WorkerConfig(concurrency=256, per_host=256, lease=40, timeout=10).hold() == 2 * 256
    assert WorkerConfig(concurrency=8, lease=15, timeout=10).hold() == 8  # never below one round
    for config in (WorkerConfig(), WorkerConfig(concurrency=3, lease=90, timeout=10)):
        rounds = config.hold() // min(config.concurrency, config.per_host)
        assert rounds * config.timeout <= config.lease / 2


def test_cached_policy_decisions_are_per_policy_and_address() -> None:
    async def check(policy: UrlPolicy, url: str) -> str:
        try:
            await policy.check(url)
        except Refused as exc:
            return str(exc)
        return "ok"

    async def main() -> list[str]:
        url = "http://127.0.0.1:9/x"
        # The same address, asked again of each policy, gets each policy's own answer.
        return [
            await check(LOOPBACK, url),
            await check(UrlPolicy(), url),
            await check(LOOPBACK, url),
            await check(UrlPolicy(), url),
            await check(UrlPolicy(), "http://[::ffff:169.254.169.254]/x"),
            await check(UrlPolicy(), "http://8.8.8.8/x"),
        ]

    answers = asyncio.run(main())
    assert answers[0] == answers[2] == "ok"
    assert "127.0.0.1" in answers[1] and answers[1] == answers[3]
    assert "refuses" in answers[4]
    assert answers[5] == "ok"
    assert not UrlPolicy().permits(ipaddress.ip_address("10.0.0.1"))


def test_failed_attempts_log_at_info_and_delivered_ones_at_debug(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    with receiver() as good, receiver() as bad:
        bad.answer = lambda n: (500, 0.0)
        _hook(db, key.id, good.url, [CAROL])
        _hook(db, key.id, bad.url, [CAROL])
        ChainBuilder(db).add(1)
        logger = logging.getLogger("snowfield.webhooks")
        # Caught at the logger itself: `snowfield` may not propagate (logs.configure).
        logger.addHandler(caplog.handler)
        try:
            with caplog.at_level(logging.DEBUG, logger="snowfield.webhooks"):
                asyncio.run(_once(_worker(db, Clock())))
        finally:
            logger.removeHandler(caplog.handler)
    levels = {
        r.__dict__["sf_outcome"]: r.levelno for r in caplog.records if r.msg == "webhook delivery"
    }
    assert levels == {"delivered": logging.DEBUG, "retry": logging.INFO}
