"""`snowfield index-primary`: a node's primary network (P-Chain, X-Chain) indexed into SQL."""

from __future__ import annotations

import logging

from snowfield.cli.options import settings_command
from snowfield.cli.service import console, migrated, run_service, stop_event
from snowfield.config import PrimaryIndexSettings

log = logging.getLogger("snowfield.cli")


@settings_command(PrimaryIndexSettings)
def index_primary(settings: PrimaryIndexSettings) -> None:
    """Index a node's primary network (P-Chain, X-Chain) over its public interfaces.

    Ours, or avalanchego with --index-enabled: P-Chain blocks and txs with their UTXOs,
    stakers and rewards, subnets, chains and L1s, and X-Chain vertices, for the data API's
    primary-network operations."""
    run_service(settings, _run_index_primary)


async def _run_index_primary(settings: PrimaryIndexSettings) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from snowfield.indexer.primary import PlatformSource, PrimaryIndexer

    db = await migrated(settings.db)
    stop = stop_event()
    source = PlatformSource(settings.node)
    indexer = PrimaryIndexer(
        db,
        source,
        batch_size=settings.batch_containers,
        verify_containers=settings.verify_containers,
    )
    try:
        columns = (*Progress.get_default_columns()[:1], BarColumn(), MofNCompleteColumn())
        with Progress(*columns, TimeRemainingColumn(), console=console, transient=True) as bar:
            task = bar.add_task("P-Chain backfill", total=None)
            done = await indexer.sync(lambda n, total: bar.update(task, completed=n, total=total))
        log.info("primary network backfill done at container %d", done - 1)
        if settings.follow:
            await indexer.follow(settings.poll_interval, stop)
    finally:
        await source.aclose()
        db.close()
