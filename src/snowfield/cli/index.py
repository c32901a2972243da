"""`snowfield index`: EVM chains indexed over JSON-RPC into SQLite or PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from snowfield.cli.options import settings_command
from snowfield.cli.service import console, migrated, run_service, stop_event
from snowfield.config import IndexSettings

# The indexer's modules load when the command runs, not with every `snowfield` command.
if TYPE_CHECKING:
    from snowfield.indexer.indexer import Indexer
    from snowfield.indexer.network import ChainTarget
    from snowfield.rpc.client import DocumentFetcher
    from snowfield.store.database import Database

log = logging.getLogger("snowfield.cli")


@settings_command(IndexSettings)
def index(settings: IndexSettings) -> None:
    """Index an EVM node (ours or any other) over JSON-RPC into SQLite or PostgreSQL.

    Blocks, transactions, receipts, logs, token transfers, internal transactions, contracts,
    NFTs and balances, for the data and metrics APIs: a backfill, then it follows the head, and
    every other EVM chain of the network beside it."""
    if settings.traces not in ("auto", "parity", "debug", "none"):
        raise typer.BadParameter("use auto, parity, debug or none", param_hint="--traces")
    run_service(settings, _run_index)


async def _run_index(settings: IndexSettings) -> None:
    from snowfield.indexer.calls import Calls
    from snowfield.indexer.identity import learn_blockchain_id, learn_network
    from snowfield.indexer.indexer import Indexer
    from snowfield.rpc.client import DocumentFetcher, RpcClient

    db = await migrated(settings.db)
    stop = stop_event()
    fetcher = DocumentFetcher()
    async with RpcClient(settings.rpc, retries=5) as client:
        calls = Calls(
            client, batch_size=settings.rpc_batch_size, concurrency=settings.rpc_concurrency
        )
        chain_id = int(await client.call("eth_chainId"), 16)
        blockchain_id = settings.blockchain_id or await learn_blockchain_id(settings.rpc)
        if settings.network is None:  # a node posing as mainnet is listed as mainnet
            network = await learn_network(settings.rpc) or "testnet"
            settings = dataclasses.replace(settings, network=network)
        await asyncio.to_thread(_record_chain, db, chain_id, blockchain_id, settings)
        indexer = Indexer(
            db, calls, fetcher, chain_id, batch_blocks=settings.batch_blocks, traces=settings.traces
        )
        metrics = await _serve_metrics(settings.metrics_port, indexer.stats.prometheus)
        try:
            work = asyncio.create_task(
                _index_network(indexer, settings, stop, db, fetcher, chain_id)
            )
            stopper = asyncio.create_task(stop.wait())
            await asyncio.wait({work, stopper}, return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await work
        finally:
            await fetcher.aclose()
            if metrics is not None:
                metrics.close()
            db.close()
    log.info("indexer stopped at block %d", indexer.stats.height)


async def _index_network(
    indexer: Indexer,
    settings: IndexSettings,
    stop: asyncio.Event,
    db: Database,
    fetcher: DocumentFetcher,
    chain_id: int,
) -> None:
    """The configured chain, and beside it every other EVM chain found or named."""
    from snowfield.indexer.network import NetworkFollower, discover, probe

    async def find() -> list[ChainTarget]:
        named = [await probe(url) for url in settings.chain_rpc or ()]
        found = await discover(settings.rpc) if settings.discover else []
        return [t for t in [*named, *found] if t is not None and t.chain_id != chain_id]

    async def follow(target: ChainTarget) -> None:
        try:
            await _index_chain(target, settings, stop, db, fetcher)
        except Exception:  # one chain failing must not stop the others
            log.exception("indexing chain %s stopped", target.chain_id)

    following = settings.follow and settings.until is None
    async with asyncio.TaskGroup() as group:
        if settings.parallel_backfill:
            group.create_task(_parallel_work(indexer, settings, stop))
        else:
            group.create_task(_index_work(indexer, settings, stop))
        if not settings.discover and not settings.chain_rpc:
            return
        if following:
            group.create_task(NetworkFollower(follow, find).run(stop))
        else:
            for target in await find():
                group.create_task(follow(target))


async def _index_chain(
    target: ChainTarget,
    settings: IndexSettings,
    stop: asyncio.Event,
    db: Database,
    fetcher: DocumentFetcher,
) -> None:
    from snowfield.indexer.calls import Calls
    from snowfield.indexer.indexer import Indexer
    from snowfield.indexer.network import chain_row
    from snowfield.rpc.client import RpcClient
    from snowfield.store.writes import upsert_chain

    features = tuple(f for f in settings.features.split(",") if f)
    row = chain_row(target, settings.network or "testnet", features)
    await asyncio.to_thread(upsert_chain, db, row)
    async with RpcClient(target.rpc_url, retries=5) as client:
        calls = Calls(
            client, batch_size=settings.rpc_batch_size, concurrency=settings.rpc_concurrency
        )
        indexer = Indexer(
            db,
            calls,
            fetcher,
            target.chain_id,
            batch_blocks=settings.batch_blocks,
            traces=settings.traces,
        )
        if settings.follow and settings.until is None:
            await indexer.follow(stop, settings.poll_interval)  # retries node errors
        else:
            height = await indexer.sync()
            log.info("chain %s indexed to block %d", target.chain_id, height)


async def _index_work(indexer: Indexer, settings: IndexSettings, stop: asyncio.Event) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (*Progress.get_default_columns()[:1], BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task("backfill", total=None)
        height = await indexer.sync(
            settings.until, lambda done, total: bar.update(task, completed=done, total=total)
        )
    log.info("backfill done at block %d (%d new transactions)", height, indexer.stats.transactions)
    if settings.follow and settings.until is None:
        await indexer.follow(stop, settings.poll_interval)


async def _parallel_work(indexer: Indexer, settings: IndexSettings, stop: asyncio.Event) -> None:
    from snowfield.indexer import backfill
    from snowfield.indexer.indexer import Indexer

    head = Indexer(
        indexer.db,
        indexer.calls,
        indexer.fetcher,
        indexer.chain_id,
        batch_blocks=settings.batch_blocks,
        traces=settings.traces,
    )
    await backfill.run(
        indexer,
        head,
        range_blocks=settings.backfill_range_blocks,
        until=settings.until,
        follow=settings.follow and settings.until is None,
        poll=settings.poll_interval,
        stop=stop,
    )
    log.info("parallel backfill: this process wrote %d blocks", indexer.stats.blocks)


def _record_chain(
    db: Database, chain_id: int, blockchain_id: str | None, settings: IndexSettings
) -> None:
    from snowfield.store.rows import ChainRow
    from snowfield.store.writes import upsert_chain

    features = tuple(f for f in settings.features.split(",") if f)
    upsert_chain(
        db,
        ChainRow(
            chain_id=chain_id,
            name=settings.chain_name,
            network=settings.network or "testnet",
            rpc_url=settings.rpc,
            ws_url=settings.ws,
            blockchain_id=blockchain_id,
            subnet_id=settings.subnet_id,
            description=settings.description,
            explorer_url=settings.explorer_url,
            token_name=settings.token_name,
            token_symbol=settings.token_symbol,
            features=features,
        ),
    )


async def _serve_metrics(port: int | None, render: Callable[[], str]) -> asyncio.Server | None:
    """Prometheus text on 127.0.0.1:port for any GET; a plain socket server keeps the indexer
    free of a web framework."""
    if port is None:
        return None

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            await reader.readuntil(b"\r\n\r\n")
            body = render().encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\n"
                + f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        writer.close()

    return await asyncio.start_server(answer, "127.0.0.1", port)
