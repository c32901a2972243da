"""`snowfield serve`: the data API, the metrics API and the explorer over an indexed database."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import uvicorn

from snowfield.cli.compose import (
    data_api_error,
    data_app,
    export_worker,
    http_limits,
    metrics_api_error,
    metrics_app,
)
from snowfield.cli.options import settings_command
from snowfield.cli.service import console, migrated, run_service
from snowfield.config import ServeSettings
from snowfield.server import server_config

if TYPE_CHECKING:
    from snowfield.store.database import Database


@settings_command(ServeSettings)
def serve(settings: ServeSettings) -> None:
    """Serve the data API, the metrics API and the explorer over an indexed database.

    The data API: chains, address history, transfers, NFTs, blocks, contracts, the primary
    network, ICM messages and, with --node-url, Warp signature aggregation; API keys and rate
    limits; transaction exports (run here, in the background) and usage. The metrics API on
    --metrics-api-port, the explorer web page at / of the data API,
    and the OpenAPI document of each at /openapi.json."""
    run_service(settings, _run_serve)


async def _run_serve(settings: ServeSettings) -> None:
    db = await migrated(settings.db, settings.db_read)
    server = uvicorn.Server(
        server_config(
            data_app(db, settings),
            host=settings.host,
            port=settings.port,
            limits=http_limits(settings),
            render=data_api_error,
        )
    )
    base = f"http://{settings.host}:{settings.port}"
    console.print(f"Data API:  {base}/v1/chains   OpenAPI: {base}/openapi.json", soft_wrap=True)
    console.print(f"Explorer:  {base}/", soft_wrap=True)
    metrics = _metrics_server(db, settings)
    # Export jobs run in this process, off the request path; several serve processes over one
    # store share them (leases), and a job a stopped process held is taken over.
    worker = export_worker(db, settings)
    running = asyncio.create_task(worker.run())
    try:
        await _serve_together(server, metrics)
    finally:
        worker.stop()
        await running
        db.close()


def _metrics_server(db: Database, settings: ServeSettings) -> uvicorn.Server:
    config = server_config(
        metrics_app(db, settings),
        host=settings.host,
        port=settings.metrics_api_port,
        limits=http_limits(settings),
        render=metrics_api_error,
    )
    base = f"http://{settings.host}:{settings.metrics_api_port}"
    console.print(
        f"Metrics:   {base}/v2/chains/total/metrics/txCount   OpenAPI: {base}/openapi.json",
        soft_wrap=True,
    )
    return uvicorn.Server(config)


async def _serve_together(*servers: uvicorn.Server) -> None:
    """Runs the servers until one stops (a signal reaches one of them), then stops the rest."""
    tasks = [asyncio.create_task(s.serve()) for s in servers]
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for server in servers:
        server.should_exit = True
    await asyncio.gather(*tasks)
