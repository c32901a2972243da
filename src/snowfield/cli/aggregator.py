"""`snowfield aggregator`: Warp signature aggregation behind the real aggregator's HTTP API."""

from __future__ import annotations

import uvicorn

from snowfield.cli.options import settings_command
from snowfield.cli.service import console, run_service
from snowfield.config import AggregatorSettings


@settings_command(AggregatorSettings)
def aggregator(settings: AggregatorSettings) -> None:
    """Serve Warp signature aggregation with the real aggregator's HTTP API.

    icm-services' /aggregate-signatures, answered by asking a node's validators over the
    peer-to-peer network, so relayers written against icm-services work unchanged."""
    run_service(settings, _run_aggregator)


async def _run_aggregator(settings: AggregatorSettings) -> None:
    from snowfield.aggregator.service import AggregatorService
    from snowfield.api.aggregator_app import create_aggregator_app

    service = AggregatorService(settings.node_url, deadline=settings.deadline)
    server = uvicorn.Server(
        uvicorn.Config(
            create_aggregator_app(service),
            host=settings.host,
            port=settings.port,
            log_level="warning",
            lifespan="on",
        )
    )
    base = f"http://{settings.host}:{settings.port}"
    console.print(f"Aggregator: {base}/aggregate-signatures  (node {settings.node_url})")
    await server.serve()
