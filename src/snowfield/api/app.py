"""create_data_app: the data service's ASGI app from a database, settings and a limiter."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import orjson
from starlette.types import ASGIApp

from snowfield.aggregator.service import AggregatorService as SignatureService
from snowfield.api import icm, signatures
from snowfield.api.errors import send_error
from snowfield.api.evm import addresses, blocks, chains, contracts, feeds, nfts, transactions
from snowfield.api.gate import Gate, RatePolicy
from snowfield.api.openapi import openapi_document
from snowfield.api.operation import ChainCache, Context, NetworkCache, Operation, Services
from snowfield.api.primary import balances as p_balances
from snowfield.api.primary import primary_network, vertices
from snowfield.api.primary import transactions as p_transactions
from snowfield.api.primary import utxos as p_utxos
from snowfield.api.primary import x_chain as p_x_chain
from snowfield.api.ratelimit import Limiter, MemoryLimiter
from snowfield.api.router import Router, operation_routes
from snowfield.api.site import ExplorerConfig, Site
from snowfield.api.telemetry import Recorder
from snowfield.errors import Unavailable
from snowfield.store.database import Database
from snowfield.store.pagination import PageTokens

OPERATIONS: tuple[Operation[Context], ...] = (
    *chains.OPERATIONS,
    *contracts.OPERATIONS,
    *addresses.OPERATIONS,
    *blocks.OPERATIONS,
    *transactions.OPERATIONS,
    *feeds.OPERATIONS,
    *nfts.OPERATIONS,
    *primary_network.OPERATIONS,
    *vertices.OPERATIONS,
    *p_balances.OPERATIONS,
    *p_utxos.OPERATIONS,
    *p_transactions.OPERATIONS,
    *p_x_chain.OPERATIONS,
    *signatures.OPERATIONS,
    *icm.OPERATIONS,
)
VERSION = "1.0.0"
_UNMATCHED_WEIGHT = 1


def create_data_app(
    db: Database,
    *,
    policy: RatePolicy | None = None,
    limiter: Limiter | None = None,
    operations: Sequence[Operation[Context]] = OPERATIONS,
    explorer: ExplorerConfig | None = None,
    signatures: SignatureService | None = None,
) -> ASGIApp:
    """The data service over `db` (already migrated); `limiter` defaults to in-memory counters;
    with `explorer`, the explorer's page at / (snowfield.api.site)."""
    secret = db.meta("page_token_secret")
    if secret is None:
        raise Unavailable("the database has no page-token secret: run its migration first")
    services = Services(db, PageTokens(secret), ChainCache(db), NetworkCache(db), signatures)
    document = orjson.dumps(
        openapi_document(operations, title="snowfield data API", version=VERSION)
    )
    # The OpenAPI document and unknown routes still count against the limit.
    routes = operation_routes(
        operations,
        functools.partial(Context, services),
        send_error,
        document=document,
        document_weight=_UNMATCHED_WEIGHT,
    )
    chosen = limiter if limiter is not None else MemoryLimiter()
    router = Router(
        routes,
        gate=Gate(db=db, limiter=chosen, policy=policy or RatePolicy()),
        recorder=Recorder("data"),
        errors=send_error,
        on_shutdown=lambda: _shutdown(chosen, signatures),
        unmatched_weight=_UNMATCHED_WEIGHT,
    )
    return router if explorer is None else Site(router, explorer)


async def _shutdown(limiter: Limiter, signatures: SignatureService | None) -> None:
    await limiter.close()
    if signatures is not None:  # its peer connections live on the server's event loop
        await signatures.close()
