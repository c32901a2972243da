"""What the metrics service's handlers run with: the store, the clock and page tokens."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool

from snowfield.api.params import decimal
from snowfield.errors import InvalidParams, NotFound
from snowfield.store import metric_tokens, rollup_reads
from snowfield.store.buckets import Interval
from snowfield.store.database import Database
from snowfield.store.rollup_reads import Series

Clock = Callable[[], float]


class MetricsService:
    """The handlers' collaborators: the store, the clock and page tokens."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    async def chains(self, ref: str) -> list[int]:
        """The chains `ref` names: one EVM chain id, or an aggregate of the indexed chains."""
        networks = await run_in_threadpool(rollup_reads.chain_networks, self.db)
        if ref == "total":
            return sorted(networks)
        if ref == "mainnet":
            return sorted(c for c, n in networks.items() if n == "mainnet")
        if ref == "testnet":  # the test network and local networks
            return sorted(c for c, n in networks.items() if n != "mainnet")
        number = decimal(ref)
        if number is not None and number in networks:
            return [number]
        raise NotFound(f"chain {ref} is not supported")

    async def cursor(self, token: str | None, scope: str) -> int | None:
        """Where the page continues; None (page one) without a token, or with an unknown or
        expired one."""
        if token is None:
            return None
        stored = await run_in_threadpool(metric_tokens.load_token, self.db, token)
        if stored is None:
            return None
        if stored.scope != scope:
            raise InvalidParams("pageToken was issued for a different query")
        if self.clock() - stored.created >= metric_tokens.TOKEN_LIFETIME:
            return None
        return stored.cursor

    async def page(self, body: dict[str, Any], series: Series, scope: str) -> dict[str, Any]:
        body["results"] = [{"value": v, "timestamp": t} for t, v in series.points]
        if series.more:
            body["nextPageToken"] = await run_in_threadpool(
                metric_tokens.save_token, self.db, scope, series.points[-1][0], int(self.clock())
            )
        return body

    async def series(
        self, chains: Sequence[int], metric: str, span: Interval, **kwargs: Any
    ) -> Series:
        return await run_in_threadpool(
            lambda: rollup_reads.series(self.db, chains, metric, span, **kwargs)
        )


@dataclass(frozen=True, slots=True)
class MetricsContext:
    """What a metrics handler is given: the service and the request's checked arguments."""

    service: MetricsService
    args: dict[str, Any]
