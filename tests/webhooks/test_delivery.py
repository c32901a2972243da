"""Deliveries end to end over a real store and a real receiver on 127.0.0.1: the writer's outbox,
the worker's signed POSTs (checked by chainkit's validateWebhook), the retry schedule under a
test clock, deactivation, unwinds, the URL policy, and order per webhook."""

from __future__ import annotations

import asyncio
import ipaddress
import time
from dataclasses import dataclass

import pytest

from snowfield.store import webhook_outbox, webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.webhooks import WebhookRow
from snowfield.store.writes import unwind
from snowfield.webhooks import retry, signing
from snowfield.webhooks.policy import UrlPolicy, networks
from snowfield.webhooks.worker import Worker, WorkerConfig
from tests.api.conftest import ALICE, CAROL, CHAIN, MULTI, NFT, TOKEN, ChainBuilder, add_chains
from tests.webhooks.receiver import receiver, validate

LOOPBACK = UrlPolicy(allow=networks(["127.0.0.0/8"]))
TRANSFER_TOPIC = "0x" + "dd" * 32


@dataclass
class Clock:
    """The worker's clock: real time (the writer stamps messages due at once in real time)
    moved by the test by `offset` seconds."""

    offset: float = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    @property
    def now(self) -> float:
        return self()

    @now.setter
    def now(self, value: float) -> None:
        self.offset += value - self()


def _hook(db: Database, owner: str, url: str, addresses: list[str], **kw: object) -> WebhookRow:
    draft = WebhookRow(
        "", owner, "address_activity", url, "test", "", str(CHAIN), CHAIN, None, "active", 0,
        bool(kw.get("logs", False)), bool(kw.get("internals", False)),
        dict(kw.get("metadata", {})),  # type: ignore[call-overload]
    )  # fmt: skip
    webhooks.ensure_secret(db, owner)
    return webhooks.create_webhook(db, draft, addresses)


def _deliver(worker: Worker) -> int:
    return asyncio.run(_once(worker))


async def _once(worker: Worker) -> int:
    try:
        return await worker.run_once()
    finally:
        await worker.close()


def _worker(db: Database, clock: Clock, **kw: object) -> Worker:
    return Worker(db, policy=LOOPBACK, clock=clock, config=WorkerConfig(**kw))  # type: ignore[arg-type]


def test_every_message_arrives_signed_and_the_client_accepts_it(db: Database) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    with receiver() as rx:
        hook = _hook(db, key.id, rx.url, [CAROL], logs=True, internals=True)
        ChainBuilder(db).add(4)
        clock = Clock()
        assert _deliver(_worker(db, clock)) == 4  # CAROL gets an internal call in tx1 of each
        secret = webhooks.shared_secret(db, key.id)
        assert secret is not None
        verdicts = validate(secret, rx.received)
        assert all(v["ok"] for v in verdicts), verdicts
        bodies = rx.bodies()
        assert [v["messageId"] for v in verdicts] == [b["messageId"] for b in bodies]
        assert {b["webhookId"] for b in bodies} == {hook.id}
        blocks = [int(b["event"]["transaction"]["blockNumber"]) for b in bodies]
        assert blocks == [1, 2, 3, 4]  # block order per webhook
        tx = bodies[0]["event"]["transaction"]
        assert tx["internalTransactions"][0]["to"] == CAROL
        assert tx["erc20Transfers"][0]["erc20Token"]["symbol"] == "TOK"
        assert (
            tx["erc20Transfers"][0]["erc20Token"]["valueWithDecimals"]
            == "1000000000000000000.000001"
        )
        assert "logs" in bodies[0]["event"]
        # A body signed with another secret is refused by the client's verifier.
        forged = validate("not-the-secret", rx.received[:1])
        assert forged[0]["ok"] is False and "Authentication" in forged[0]["name"]
        assert signing.verify(secret, rx.received[0].body, rx.received[0].headers["x-signature"])
        # Nothing is sent twice once delivered.
        assert _deliver(_worker(db, clock)) == 0


def test_transfers_of_every_kind_and_the_topic_filter(db: Database) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    with receiver() as rx:
        _hook(db, key.id, rx.url, [MULTI])
        _hook(db, key.id, rx.url, [TOKEN], metadata={"eventSignatures": [TRANSFER_TOPIC]})
        ChainBuilder(db).add(6)
        _deliver(_worker(db, Clock()))
        bodies = rx.bodies()
    # MULTI moves in blocks 3 and 6; the topic-filtered hook sees nothing (the builder writes no
    # logs, so no transaction emits the topic).
    assert [int(b["event"]["transaction"]["blockNumber"]) for b in bodies] == [3, 6]
    erc1155 = bodies[0]["event"]["transaction"]["erc1155Transfers"][0]
    assert erc1155["type"] == "ERC1155" and erc1155["tokenId"] == "7"
    assert "logs" not in bodies[0]["event"]
    assert "internalTransactions" not in bodies[0]["event"]["transaction"]


def test_failures_follow_the_real_schedule_then_deactivate(db: Database) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    clock = Clock()
    with receiver() as rx:
        rx.answer = lambda n: (500, 0.0)
        hook = _hook(db, key.id, rx.url, [NFT])
        ChainBuilder(db).add(2)  # block 2 mints an NFT: one message
        expected = [0, *(d for d in (10, *retry.QUEUE_S))]
        seen = []
        for step in expected:
            clock.now += step
            # Due only when its time has come: a second earlier nothing is sent.
            clock.now -= 1
            assert _deliver(_worker(db, clock)) == 0 or step == 0
            clock.now += 1
            seen.append(_deliver(_worker(db, clock)))
        assert seen == [1] * len(expected) and len(rx.received) == retry.MAX_ATTEMPTS == 10
        ids = {b["messageId"] for b in rx.bodies()}
        assert len(ids) == 1  # one message, one id across every attempt
        [log] = webhook_outbox.deliveries(db, hook.id, None, 10).items
        assert (log.state, log.attempts, log.last_status) == ("failed", 10, 500)
        after = webhooks.get_webhook(db, key.id, hook.id)
        assert after is not None and after.status == "inactive"  # paid tier: its 24 h retry failed
        clock.now += 10**6
        assert _deliver(_worker(db, clock)) == 0


def test_free_tier_deactivates_after_six_messages_fail_their_first_two_attempts(
    db: Database,
) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    clock = Clock()
    with receiver() as rx:
        rx.answer = lambda n: (503, 0.0)
        hook = _hook(db, key.id, rx.url, [ALICE])
        ChainBuilder(db).add(3)  # ALICE sends every transaction: 3 blocks, 10 messages
        _deliver(_worker(db, clock, tier="free"))
        clock.now += 10
        _deliver(_worker(db, clock, tier="free"))
        after = webhooks.get_webhook(db, key.id, hook.id)
        assert after is not None and after.status == "inactive"
        assert after.deactivated_reason == "6 messages failed both first attempts"


def test_timeouts_and_refused_connections_are_retried_and_a_slow_receiver_delays_only_itself(
    db: Database,
) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    clock = Clock()
    with receiver() as slow, receiver() as fast:
        slow.answer = lambda n: (200, 1.5)
        slow_hook = _hook(db, key.id, slow.url, [CAROL])
        _hook(db, key.id, fast.url, [CAROL])
        dead = _hook(db, key.id, "http://127.0.0.1:9/nobody", [CAROL])
        ChainBuilder(db).add(1)
        asyncio.run(_once(_worker(db, clock, timeout=0.5)))
        assert len(fast.received) == 1
        # The fast receiver's answer came before the slow one's deadline passed.
        assert fast.received[0].at < slow.received[0].at + 0.5
        [timed_out] = webhook_outbox.deliveries(db, slow_hook.id, None, 5).items
        assert timed_out.state == "pending" and "no answer within" in str(timed_out.last_error)
        assert 0 <= int(clock.now * 1000) + 10_000 - timed_out.next_at < 3_000  # 10 s later
        [refused] = webhook_outbox.deliveries(db, dead.id, None, 5).items
        assert refused.state == "pending" and refused.attempts == 1
        assert "Connect" in str(refused.last_error)


def test_the_url_policy_refuses_internal_targets_by_default(db: Database) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    with receiver() as rx:
        hook = _hook(db, key.id, rx.url, [CAROL])
        ChainBuilder(db).add(1)
        worker = Worker(db, clock=Clock())  # the default policy: public addresses only
        asyncio.run(_once(worker))
        assert rx.received == []
    [row] = webhook_outbox.deliveries(db, hook.id, None, 5).items
    assert "URL policy" in str(row.last_error)
    policy = UrlPolicy()
    for internal in ("127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "fd00::1", "192.168.1.1"):
        assert not policy.permits(ipaddress.ip_address(internal))
    assert policy.permits(ipaddress.ip_address("8.8.8.8"))
    denied = UrlPolicy(allow=networks(["0.0.0.0/0"]), deny=networks(["169.254.0.0/16"]))
    assert not denied.permits(ipaddress.ip_address("169.254.169.254"))


def test_an_unwind_retracts_untried_messages_and_tells_of_delivered_ones(db: Database) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    clock = Clock()
    with receiver() as rx:
        hook = _hook(db, key.id, rx.url, [CAROL], logs=True)
        builder = ChainBuilder(db)
        builder.add(2)
        _deliver(_worker(db, clock))  # blocks 1 and 2 delivered
        builder.add(1)  # block 3 written, not delivered yet
        unwind(db, CHAIN, 2)
        _deliver(_worker(db, clock))
        bodies = rx.bodies()
    assert [int(b["event"]["transaction"]["blockNumber"]) for b in bodies] == [1, 2, 2]
    removed = bodies[2]
    assert removed["removed"] is True and removed["removedMessageId"] == bodies[1]["messageId"]
    assert removed["messageId"] != bodies[1]["messageId"]
    kinds = {
        (d.block_number, d.kind, d.state)
        for d in webhook_outbox.deliveries(db, hook.id, None, 9).items
    }
    assert kinds == {
        (1, "event", "delivered"),
        (2, "event", "unwound"),
        (2, "removed", "delivered"),
    }


def test_a_batch_written_again_adds_no_message(db: Database) -> None:
    """The writer's upserts replay a batch after a crash: the outbox gains nothing new."""
    add_chains(db)
    key, _ = create_key(db, "owner")
    hook = _hook(db, key.id, "http://127.0.0.1:9/x", [CAROL])
    builder = ChainBuilder(db)
    builder.add(2)
    again = ChainBuilder(db)
    again.add(2)  # the same blocks, the same hashes
    assert len(webhook_outbox.deliveries(db, hook.id, None, 10).items) == 2


@pytest.mark.parametrize("state", ["inactive"])
def test_inactive_webhooks_get_no_new_messages(db: Database, state: str) -> None:
    add_chains(db)
    key, _ = create_key(db, "owner")
    hook = _hook(db, key.id, "http://127.0.0.1:9/x", [CAROL])
    webhooks.update_webhook(db, key.id, hook.id, {"status": state})
    ChainBuilder(db).add(2)
    assert webhook_outbox.deliveries(db, hook.id, None, 10).items == []


def _same_store(db: Database) -> Database:
    """A second connection to `db`'s store, as a second worker process would open it."""
    if db.dialect == "sqlite":
        return Database(db.url.target)
    joiner = "&" if "?" in db.url.target else "?"
    return Database(f"{db.url.target}{joiner}schema={db.url.schema}")


def test_two_workers_never_claim_the_same_message(db: Database) -> None:
    """Claims take rows under a lease (PostgreSQL: FOR UPDATE SKIP LOCKED): two workers at
    once share the due messages without overlap."""
    import concurrent.futures

    add_chains(db)
    key, _ = create_key(db, "owner")
    for _ in range(20):
        _hook(db, key.id, "http://127.0.0.1:9/x", [CAROL])
    ChainBuilder(db).add(3)  # 3 messages for each of 20 webhooks
    other = _same_store(db)
    now = int(time.time() * 1000) + 1000
    try:
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            claims = list(
                pool.map(
                    lambda store: webhook_outbox.claim(store, now, 60_000, 25),
                    [db, other, db, other],
                )
            )
    finally:
        other.close()
    ids = [c.message_id for claim in claims for c in claim]
    assert len(ids) == len(set(ids)) == 60  # 4 x 25 asked, 60 due: each claimed once
    assert webhook_outbox.claim(db, now, 60_000, 100) == []  # all held under their leases
    assert len(webhook_outbox.claim(db, now + 60_001, 60_000, 100)) == 60  # leases lapsed


def test_an_unwind_tells_of_a_message_in_flight(db: Database) -> None:
    """A message a worker holds may already be on the wire: unwound, it is followed by removed."""
    add_chains(db)
    key, _ = create_key(db, "owner")
    hook = _hook(db, key.id, "http://127.0.0.1:9/x", [CAROL])
    ChainBuilder(db).add(2)
    held = webhook_outbox.claim(db, int(time.time() * 1000) + 1000, 60_000, 10)
    assert len(held) == 2  # blocks 1 and 2, both leased, neither tried yet
    unwind(db, CHAIN, 1)
    rows = sorted((d.kind, d.state) for d in webhook_outbox.deliveries(db, hook.id, None, 10).items)
    assert rows == [("event", "unwound")] * 2 + [("removed", "pending")] * 2


def test_a_revoked_keys_webhooks_fall_silent(db: Database) -> None:
    from snowfield.store.keys import revoke_key

    add_chains(db)
    key, _ = create_key(db, "owner")
    _hook(db, key.id, "http://127.0.0.1:9/x", [CAROL])
    ChainBuilder(db).add(1)
    now = int(time.time() * 1000) + 1000
    revoke_key(db, key.id)
    assert webhook_outbox.claim(db, now, 60_000, 10) == []
