"""The settings of `snowfield webhooks`: the delivery worker over the store's outbox."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.config import shared
from snowfield.config.setting import setting


@dataclass(frozen=True, slots=True)
class WebhookSettings:
    """The webhook delivery worker: it posts the messages the indexers write to the store's
    outbox (in the same transaction as the blocks they report), signed with the API key's shared
    secret, and retries failures on the real service's schedule (10 s, then 1 min to 24 h). Run
    several against one PostgreSQL store to share the work; on SQLite run one."""

    db: str = shared.db()
    timeout: float = setting(
        10.0,
        "Seconds a receiver has to answer a delivery 2xx.",
        min=0.1,
        max=60,
        env="SNOWFIELD_WEBHOOKS_TIMEOUT",
    )
    concurrency: int = setting(
        256,
        "Most deliveries in flight at once.",
        min=1,
        max=10_000,
        env="SNOWFIELD_WEBHOOKS_CONCURRENCY",
    )
    per_host: int = setting(
        64,
        "Most deliveries in flight at once to one host (scheme, host and port): a fan-out"
        " reuses that many kept-alive connections rather than opening one per delivery.",
        min=1,
        max=10_000,
        env="SNOWFIELD_WEBHOOKS_PER_HOST",
    )
    lease: float = setting(
        120.0,
        "Seconds a worker's claim on a message holds; a worker that dies leaves its messages"
        " to others (or to itself restarted) after this.",
        min=1,
        env="SNOWFIELD_WEBHOOKS_LEASE",
    )
    poll: float = setting(
        0.05,
        "Seconds between looks at the outbox when nothing is due.",
        min=0.01,
        env="SNOWFIELD_WEBHOOKS_POLL",
    )
    tier: str = setting(
        "paid",
        "Deactivation rules: paid (a message fails its 24 h retry) or free (6 messages fail"
        " both first attempts, or more than 5 enter the retry queue).",
        env="SNOWFIELD_WEBHOOKS_TIER",
    )
    allow: str = setting(
        "",
        "Comma-separated CIDRs deliveries may reach although internal (private, loopback,"
        " link-local). Default: none; `snowfield up` allows loopback for local receivers.",
        env="SNOWFIELD_WEBHOOKS_ALLOW",
    )
    deny: str = setting(
        "",
        "Comma-separated CIDRs deliveries may never reach (checked before the allow list).",
        env="SNOWFIELD_WEBHOOKS_DENY",
    )
    metrics_port: int = setting(
        0,
        "Port of the worker's Prometheus metrics on 127.0.0.1 (0: not served).",
        min=0,
        max=65535,
        env="SNOWFIELD_WEBHOOKS_METRICS_PORT",
    )
    log_level: str = shared.log_level()
    log_format: str = shared.log_format()
