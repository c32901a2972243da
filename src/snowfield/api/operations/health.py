"""The data service's health-check (its store answers) and live-check (the process answers),
in the real service's HealthCheckResultDto shape: {status, info, error, details}."""

from __future__ import annotations

from snowfield.api.operation import Context, Json, Operation
from snowfield.errors import Unavailable
from snowfield.store.database import Database


def _ping(db: Database) -> None:
    db.query_one("SELECT 1")


async def health_check(ctx: Context) -> Json:
    """ok with the database up; a store that does not answer is a 503."""
    try:
        await ctx.run(_ping, ctx.db)
    except Exception as exc:
        raise Unavailable("the database does not answer") from exc
    up = {"database": {"status": "up"}}
    return {"status": "ok", "info": up, "error": {}, "details": up}


async def live_check(ctx: Context) -> Json:
    return {"status": "ok", "info": {}, "error": {}, "details": {}}


OPERATIONS = (
    Operation(
        "data-health-check",
        "/v1/health-check",
        "Whether the service and its database answer.",
        "Health check",
        (),
        "HealthCheckResult",
        20,
        health_check,
    ),
    Operation(
        "live-check",
        "/v1/live-check",
        "Whether the service's process answers (its database is not asked).",
        "Health check",
        (),
        "HealthCheckResult",
        1,
        live_check,
    ),
)
