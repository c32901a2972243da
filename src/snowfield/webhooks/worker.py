"""The delivery worker: claims due messages from the outbox under a lease, posts each signed
to its webhook's URL, and records the outcome (delivered, or the next attempt's time).

At least once: a message leaves the pending state only after its receiver answered 2xx (or its
schedule ran out), so a worker killed mid-delivery leaves it pending; its lease lapses and it is
sent again under the same messageId. Per webhook, messages go one at a time in the order claimed
(block order); webhooks are served side by side, so a slow or dead receiver delays only its own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from snowfield.store import webhook_outbox
from snowfield.store.database import Database
from snowfield.store.webhook_outbox import Claimed
from snowfield.webhooks import retry, signing
from snowfield.webhooks.policy import Refused, UrlPolicy

log = logging.getLogger("snowfield.webhooks")
HEARTBEAT_S = 5.0  # how often a running worker says so in the store (GET /v1/chains reads it)
_MAX_ANSWER = 64 * 1024  # of a receiver's answer, read so the connection can be reused


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    timeout: float = 10.0  # the real service's answer deadline
    lease: float = 120.0  # seconds a claim holds before another worker may take the message
    batch: int = 1000  # most messages claimed per look (one store round trip)
    concurrency: int = 256  # POSTs in flight at once
    per_host: int = 64  # POSTs in flight at once to one host (scheme, host, port)
    poll: float = 0.05  # seconds between looks when nothing was due
    tier: str = "paid"  # which deactivation rules apply (webhooks/retry.py)
    user_agent: str = "snowfield-webhooks/1"

    def hold(self) -> int:
        """Most messages held at once (claimed, outcome not stored yet). Claiming ahead of the
        POST slots keeps the store's round trips off the deliveries' path, but a held message
        must be sent before its lease lapses: the held ones wait at most `rounds` answer
        deadlines for a slot, within half the lease, even when all go to one host (whose
        slots are `per_host`)."""
        rounds = max(1, min(4, int(self.lease // (2 * self.timeout))))
        return min(self.concurrency, self.per_host) * rounds


class Metrics:
    """The worker's Prometheus metrics, in a registry of their own."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.attempts = Counter(
            "snowfield_webhook_attempts",
            "Delivery attempts by outcome (delivered, retry, failed).",
            ["outcome"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "snowfield_webhook_post_seconds",
            "Time from sending a delivery's POST to the receiver's answer.",
            registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.lag = Histogram(
            "snowfield_webhook_block_to_delivery_seconds",
            "Time from the block's timestamp to a message's successful delivery.",
            registry=self.registry,
            buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600),
        )
        self.in_flight = Gauge(
            "snowfield_webhook_in_flight", "Messages being delivered.", registry=self.registry
        )


class Worker:
    """Delivers the outbox of `db`; `clock` (seconds) schedules retries, so tests move time."""

    def __init__(
        self,
        db: Database,
        *,
        policy: UrlPolicy | None = None,
        config: WorkerConfig | None = None,
        clock: Callable[[], float] = time.time,
        metrics: Metrics | None = None,
    ) -> None:
        self.db = db
        self.policy = policy or UrlPolicy()
        self.config = config or WorkerConfig()
        self.clock = clock
        self.metrics = metrics or Metrics()
        self._session: aiohttp.ClientSession | None = None  # made in the running loop
        self._locks: dict[str, asyncio.Lock] = {}
        self._posting = 0  # the in-flight gauge reads it when scraped (no lock per POST)
        self.metrics.in_flight.set_function(lambda: self._posting)
        self._flying: set[str] = set()  # held: claimed, outcome not stored yet
        self._hold = self.config.hold()
        self._starved = False  # the last look found no room: stored outcomes wake the loop
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._room = asyncio.Semaphore(self.config.concurrency)
        self._hosts: dict[str, asyncio.Semaphore] = {}
        self._outcomes: list[webhook_outbox.Outcome] = []
        self._recorder: asyncio.Task[None] | None = None
        # Per webhook, the (failed_first, queued) increments of outcomes not stored yet.
        self._unstored: dict[str, list[int]] = {}

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    async def claim(self) -> list[Claimed]:
        room = self._hold - len(self._flying)
        self._starved = room <= 0
        if self._starved:
            return []
        limit = min(room, self.config.batch)
        if not self._flying:
            # Idle: claim just enough to fill the POST slots, so the first POSTs leave sooner
            # (a claim's cost grows with its size); the next look, made at once, claims ahead.
            limit = min(limit, self.config.concurrency)
        found = await asyncio.to_thread(
            webhook_outbox.claim,
            self.db,
            self._now_ms(),
            int(self.config.lease * 1000),
            limit,
        )
        return [m for m in found if m.message_id not in self._flying]

    def start(self, messages: list[Claimed]) -> None:
        for message in messages:
            self._flying.add(message.message_id)
            task = asyncio.create_task(self._deliver(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def run_once(self) -> int:
        """One look: claims what is due, delivers it all, returns how many were tried."""
        messages = await self.claim()
        self.start(messages)
        await self.drain()
        return len(messages)

    async def drain(self) -> None:
        while self._tasks or self._recorder is not None:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
            if self._recorder is not None:
                await asyncio.gather(self._recorder, return_exceptions=True)

    def _record(self, outcome: webhook_outbox.Outcome) -> None:
        """Queues an outcome for the recorder, which stores every queued one per transaction."""
        self._outcomes.append(outcome)
        if outcome.failed_first or outcome.entered_queue:
            counts = self._unstored.setdefault(outcome.webhook_id, [0, 0])
            counts[0] += int(outcome.failed_first)
            counts[1] += int(outcome.entered_queue)
        if self._recorder is None:
            self._recorder = asyncio.create_task(self._store_outcomes())

    async def _store_outcomes(self) -> None:
        try:
            while self._outcomes:
                batch, self._outcomes = self._outcomes, []
                try:
                    await asyncio.to_thread(webhook_outbox.record, self.db, batch)
                except Exception:  # their leases lapse: the messages are sent again
                    log.exception("recording %d webhook outcomes failed", len(batch))
                if self._starved:
                    self._wake.set()
                for outcome in batch:
                    self._flying.discard(outcome.message_id)
                    counts = self._unstored.get(outcome.webhook_id)
                    if counts is not None:
                        counts[0] -= int(outcome.failed_first)
                        counts[1] -= int(outcome.entered_queue)
                        if counts == [0, 0]:
                            del self._unstored[outcome.webhook_id]
        finally:
            self._recorder = None

    async def run(self, stop: asyncio.Event) -> None:
        """Delivers until `stop` is set, then finishes what is in flight."""
        beat = 0.0
        while not stop.is_set():
            try:
                if time.monotonic() - beat >= HEARTBEAT_S:
                    await asyncio.to_thread(webhook_outbox.heartbeat, self.db, self._now_ms())
                    beat = time.monotonic()
                messages = await self.claim()
            except Exception:  # the store away: look again, never die of it
                log.exception("webhook outbox claim failed")
                messages = []
            self.start(messages)
            if not messages:
                await self._pause(stop)
        await self.drain()

    async def _pause(self, stop: asyncio.Event) -> None:
        """Until the next look: `poll` seconds, or sooner when stopped or when stored outcomes
        free room a full worker waits for."""
        self._wake.clear()
        waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self._wake.wait())]
        try:
            await asyncio.wait(waits, timeout=self.config.poll, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()

    async def close(self) -> None:
        await self.drain()
        if self._session is not None:
            await self._session.close()

    def _client(self) -> aiohttp.ClientSession:
        # aiohttp, not httpx: httpx's connection pool cost several times the POST itself
        # per delivery under fan-out (bench/webhooks.py).
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.config.timeout),
                connector=aiohttp.TCPConnector(limit=self.config.concurrency),
                auto_decompress=False,
            )
        return self._session

    async def _deliver(self, message: Claimed) -> None:
        lock = self._locks.get(message.webhook_id) or self._locks.setdefault(
            message.webhook_id, asyncio.Lock()
        )
        try:
            # The webhook's turn first, then its host's slot, then a slot: messages waiting
            # behind a slow receiver or a busy host hold no slot another webhook could use.
            async with lock, self._host_room(message.url), self._room:
                self._posting += 1
                try:
                    await self._attempt(message)
                finally:
                    self._posting -= 1
        except Exception:
            log.exception("webhook delivery of %s failed", message.message_id)
            self._flying.discard(message.message_id)

    def _host_room(self, url: str) -> asyncio.Semaphore:
        # A fan-out to one host opens at most `per_host` connections and reuses them: each new
        # connection costs more than a POST on a kept-alive one (bench/webhooks.py).
        parts = urlsplit(url)
        host = f"{parts.scheme}://{parts.netloc}"
        room = self._hosts.get(host)
        if room is None:
            room = self._hosts[host] = asyncio.Semaphore(self.config.per_host)
        return room

    async def _post(self, message: Claimed) -> tuple[int | None, str | None]:
        headers = {
            "content-type": "application/json",
            signing.HEADER: signing.sign(message.secret, message.body),
            "user-agent": self.config.user_agent,
        }
        try:
            await self.policy.check(message.url)
            async with self._client().post(
                message.url,
                data=message.body,
                headers=headers,
                allow_redirects=False,  # a redirect could lead past the URL policy
            ) as response:
                await response.content.read(_MAX_ANSWER)  # the answer's body is not used
                return response.status, None
        except Refused as exc:
            return None, f"refused by the URL policy: {exc}"
        except TimeoutError:
            return None, f"no answer within {self.config.timeout:g} s"
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            return None, f"{type(exc).__name__}: {exc}"[:500]

    async def _attempt(self, message: Claimed) -> None:
        started = time.monotonic()
        status, error = await self._post(message)
        elapsed = time.monotonic() - started
        ok = status is not None and 200 <= status < 300
        if status is not None and not ok:
            error = f"the receiver answered {status}"
        failed_first, queued = (0, 0)
        if not ok:  # the deactivation rules count failures only
            failed_first, queued = await asyncio.to_thread(
                webhook_outbox.counters, self.db, message.webhook_id
            )
            pending = self._unstored.get(message.webhook_id, [0, 0])
            failed_first, queued = failed_first + pending[0], queued + pending[1]
        outcome = retry.decide(
            message,
            ok=ok,
            status=status,
            error=error,
            latency_ms=int(elapsed * 1000),
            now_ms=self._now_ms(),
            tier=self.config.tier,
            failed_first=failed_first,
            queued=queued,
        )
        self._record(outcome)
        self.metrics.latency.observe(elapsed)
        label = "delivered" if ok else ("retry" if outcome.state == "pending" else "failed")
        self.metrics.attempts.labels(label).inc()
        if ok:
            self.metrics.lag.observe(max(0.0, time.time() - message.block_timestamp))
        # Delivered attempts log at DEBUG: at fan-out rates a line each cost more than the
        # POST's own bookkeeping; the attempts counter (by outcome) counts them. Failures,
        # the lines an operator reads, stay at INFO.
        log.log(
            logging.DEBUG if ok else logging.INFO,
            "webhook delivery",
            extra={
                "sf_message_id": message.message_id,
                "sf_webhook_id": message.webhook_id,
                "sf_attempt": outcome.attempts,
                "sf_outcome": label,
                "sf_status": status,
                "sf_error": error,
                "sf_latency_ms": outcome.latency_ms,
                "sf_next_at": outcome.next_at if outcome.state == "pending" else None,
                "sf_deactivated": outcome.deactivate,
            },
        )
