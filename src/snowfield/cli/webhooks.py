"""`snowfield webhooks`: the webhook delivery worker over the store's outbox."""

from __future__ import annotations

from snowfield.cli.options import settings_command
from snowfield.cli.service import console, fail, migrated, run_service, stop_event
from snowfield.config import WebhookSettings


@settings_command(WebhookSettings)
def webhooks(settings: WebhookSettings) -> None:
    """Deliver webhooks: post the outbox's messages, signed, retried on the real schedule.

    The indexers write each message in the transaction of the block it reports; this worker
    posts it (x-signature: base64 HMAC-SHA256 of the body with the API key's shared secret)
    until the receiver answers 2xx, keeping the delivery log. Safe to kill at any moment."""
    if settings.tier not in ("free", "paid"):
        fail("--tier must be free or paid", 2)
    run_service(settings, _run)


async def _run(settings: WebhookSettings) -> None:
    from prometheus_client import start_http_server

    from snowfield.webhooks.policy import UrlPolicy, networks
    from snowfield.webhooks.worker import Worker, WorkerConfig

    try:
        policy = UrlPolicy(networks(settings.allow.split(",")), networks(settings.deny.split(",")))
    except ValueError as exc:
        fail(f"--allow/--deny: {exc}", 2)
    db = await migrated(settings.db)
    config = WorkerConfig(
        timeout=settings.timeout,
        lease=settings.lease,
        concurrency=settings.concurrency,
        per_host=settings.per_host,
        poll=settings.poll,
        tier=settings.tier,
    )
    worker = Worker(db, policy=policy, config=config)
    if settings.metrics_port:
        start_http_server(settings.metrics_port, "127.0.0.1", registry=worker.metrics.registry)
    stop = stop_event()
    console.print(f"Webhook worker on {settings.db} ({settings.tier} tier rules)")
    try:
        await worker.run(stop)
    finally:
        await worker.close()
        db.close()
