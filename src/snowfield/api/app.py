"""create_data_app: the data service's ASGI app from a database, settings and a limiter."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import orjson
from starlette.types import ASGIApp

from snowfield.aggregator.service import AggregatorService as SignatureService
from snowfield.api import icm, icm_messages, signatures
from snowfield.api.errors import send_error
from snowfield.api.evm import (
    address_chains,
    address_history,
    addresses,
    balances,
    blocks,
    chains,
    contracts,
    feeds,
    nfts,
    transactions,
)
from snowfield.api.gate import Gate, RatePolicy
from snowfield.api.openapi import openapi_document
from snowfield.api.operation import ChainCache, Context, NetworkCache, Operation, Services
from snowfield.api.operations import exports, health, usage
from snowfield.api.operations.request_log import RequestLog
from snowfield.api.primary import balances as p_balances
from snowfield.api.primary import blocks as p_blocks
from snowfield.api.primary import (
    delegators,
    l1_validators,
    network,
    primary_network,
    supply,
    validators,
    vertices,
)
from snowfield.api.primary import transactions as p_transactions
from snowfield.api.primary import utxos as p_utxos
from snowfield.api.primary import x_chain as p_x_chain
from snowfield.api.ratelimit import Limiter, MemoryLimiter
from snowfield.api.router import Answer, Router, operation_routes
from snowfield.api.site import ExplorerConfig, Site
from snowfield.api.telemetry import Recorder
from snowfield.api.webhooks import operations as webhooks
from snowfield.errors import Unavailable
from snowfield.routing.table import GET, Route
from snowfield.store.database import Database
from snowfield.store.pagination import PageTokens

OPERATIONS: tuple[Operation[Context], ...] = (
    *chains.OPERATIONS,
    *contracts.OPERATIONS,
    *addresses.OPERATIONS,
    *balances.OPERATIONS,
    *address_history.OPERATIONS,
    *address_chains.OPERATIONS,
    *blocks.OPERATIONS,
    *transactions.OPERATIONS,
    *feeds.OPERATIONS,
    *nfts.OPERATIONS,
    *primary_network.OPERATIONS,
    *vertices.OPERATIONS,
    *p_blocks.OPERATIONS,
    *network.OPERATIONS,
    *validators.OPERATIONS,
    *delegators.OPERATIONS,
    *l1_validators.OPERATIONS,
    *p_balances.OPERATIONS,
    *p_utxos.OPERATIONS,
    *p_transactions.OPERATIONS,
    *p_x_chain.OPERATIONS,
    *supply.OPERATIONS,
    *signatures.OPERATIONS,
    *icm.OPERATIONS,
    *icm_messages.OPERATIONS,
    *webhooks.OPERATIONS,
    *exports.OPERATIONS,
    *usage.OPERATIONS,
    *health.OPERATIONS,
)
VERSION = "1.0.0"
_UNMATCHED_WEIGHT = 1
_DOWNLOAD_WEIGHT = 10  # an export file: as the operation that tells its status


def create_data_app(
    db: Database,
    *,
    policy: RatePolicy | None = None,
    limiter: Limiter | None = None,
    operations: Sequence[Operation[Context]] = OPERATIONS,
    explorer: ExplorerConfig | None = None,
    signatures: SignatureService | None = None,
    public_url: str = "",
    requests: RequestLog | None = None,
    log_requests: bool = True,
) -> ASGIApp:
    """The data service over `db` (already migrated); `limiter` defaults to in-memory counters;
    with `explorer`, the explorer's page at / (snowfield.api.site); `public_url` prefixes the
    links it hands out (export files); `requests` logs every answered request (usage), by
    default to `db` every tenth of a second (not at all without `log_requests`)."""
    secret = db.meta("page_token_secret")
    if secret is None:
        raise Unavailable("the database has no page-token secret: run its migration first")
    services = Services(
        db, PageTokens(secret), ChainCache(db), NetworkCache(db), signatures, public_url
    )
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
    download = Answer(exports.download_endpoint(db), _DOWNLOAD_WEIGHT)
    routes.insert(0, Route(exports.DOWNLOAD_PATH, {"GET": download, "HEAD": download}, GET))
    log = (requests or RequestLog(db)) if log_requests else None
    chosen = limiter if limiter is not None else MemoryLimiter()
    router = Router(
        routes,
        gate=Gate(db=db, limiter=chosen, policy=policy or RatePolicy()),
        recorder=Recorder("data"),
        errors=send_error,
        on_shutdown=lambda: _shutdown(chosen, signatures, log),
        unmatched_weight=_UNMATCHED_WEIGHT,
        requests=log,
    )
    return router if explorer is None else Site(router, explorer)


async def _shutdown(
    limiter: Limiter, signatures: SignatureService | None, requests: RequestLog | None
) -> None:
    if requests is not None:
        await requests.close()
    await limiter.close()
    if signatures is not None:  # its peer connections live on the server's event loop
        await signatures.close()
