"""The real service's retry schedule and deactivation rules, as pure functions of an attempt.

A receiver has 10 s to answer 2xx. A failed first attempt is tried again 10 s later; a message
that fails both enters the retry queue and is tried 1 min, 5 min, 10 min, 30 min, 2 h, 6 h,
12 h and 24 h after each failure in turn (about 45 h), each message on its own schedule.
Deactivation: on the free tier after 6 messages failed both first attempts, or once more than 5
messages ever entered the queue; on the paid tier when a message fails its 24 h retry.
"""

from __future__ import annotations

from snowfield.store.webhook_outbox import DELIVERED, FAILED, PENDING, Claimed, Outcome

SECOND_TRY_S = 10
QUEUE_S = (60, 300, 600, 1800, 7200, 21600, 43200, 86400)
MAX_ATTEMPTS = 2 + len(QUEUE_S)
FREE_FAILED_FIRST = 6
FREE_QUEUED = 5
TIERS = ("free", "paid")


def delay_after(attempts: int) -> int | None:
    """Seconds until the next attempt after `attempts` failed ones; None: no more."""
    if attempts == 1:
        return SECOND_TRY_S
    if 2 <= attempts < MAX_ATTEMPTS:
        return QUEUE_S[attempts - 2]
    return None


def decide(
    message: Claimed,
    *,
    ok: bool,
    status: int | None,
    error: str | None,
    latency_ms: int,
    now_ms: int,
    tier: str,
    failed_first: int,
    queued: int,
) -> Outcome:
    """What follows one attempt; `failed_first`/`queued`: the webhook's counts before it."""
    attempts = message.attempts + 1
    if ok:
        return Outcome(
            message.message_id, message.webhook_id, DELIVERED, attempts, now_ms, status, None,
            latency_ms, now_ms, False, False, None,
        )  # fmt: skip
    delay = delay_after(attempts)
    entered = attempts == 2
    deactivate = None
    if tier == "free" and entered:
        if failed_first + 1 >= FREE_FAILED_FIRST:
            deactivate = f"{FREE_FAILED_FIRST} messages failed both first attempts"
        elif queued + 1 > FREE_QUEUED:
            deactivate = f"more than {FREE_QUEUED} messages entered the retry queue"
    if delay is None and tier == "paid":
        deactivate = "a message failed its 24 h retry"
    return Outcome(
        message.message_id, message.webhook_id, FAILED if delay is None else PENDING, attempts,
        now_ms + (delay or 0) * 1000, status, error, latency_ms, now_ms, entered, entered,
        deactivate,
    )  # fmt: skip
