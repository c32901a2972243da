"""The composition root: `snowfield devnet | ...` builds the parts and starts the servers."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
import uvicorn
import uvloop
from rich.console import Console

from snowfield import logs
from snowfield.config import SETTINGS, IndexSettings, NetworkSettings, PrimaryIndexSettings
from snowfield.crypto.keys import DEFAULT_MNEMONIC
from snowfield.errors import InvalidParams, SnowfieldError
from snowfield.server import HttpLimits, server_config

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
console = Console(stderr=True)
log = logging.getLogger("snowfield.cli")
_HELP = {(s.service, s.name): s for s in SETTINGS}
# `make up` crosses the X-Chain's linearization within its first minute of demo traffic.
UP_X_DAG_VERTICES = 6
# Dev keys of `make up`'s ICM traffic: the relayer pays delivery gas with one, the demo sends
# with the other (neither is used on the EVM chains by another demo).
ICM_RELAYER_KEY, ICM_DEMO_KEY = 4, 5


@app.callback()
def root() -> None:
    """snowfield: devnet, indexer, data and metrics APIs, signature aggregator."""


def _opt(name: str, service: str = "devnet", **kwargs: Any) -> Any:
    setting = _HELP[(service, name)]
    flag = f"--{name}/--no-{name}" if isinstance(setting.default, bool) else f"--{name}"
    return typer.Option(flag, envvar=setting.env, help=setting.help, **kwargs)


@app.command()
def devnet(
    host: Annotated[str, _opt("host")] = "127.0.0.1",
    port: Annotated[int, _opt("port")] = 9650,
    data_dir: Annotated[Path | None, _opt("data-dir")] = None,
    network_id: Annotated[int, _opt("network-id")] = 12345,
    chain_id: Annotated[int, _opt("chain-id")] = 43112,
    block_time: Annotated[float | None, _opt("block-time", min=0.01)] = None,
    gas_limit: Annotated[int, _opt("gas-limit", min=21_000)] = 15_000_000,
    genesis_timestamp: Annotated[int | None, _opt("genesis-timestamp", min=0)] = None,
    mnemonic: Annotated[str, _opt("mnemonic")] = DEFAULT_MNEMONIC,
    accounts: Annotated[int, _opt("accounts", min=1, max=1000)] = 10,
    validators: Annotated[int, _opt("validators", min=1, max=100)] = 5,
    balance: Annotated[int, _opt("balance", min=0)] = 10_000,
    demo: Annotated[bool, _opt("demo")] = False,
    l1: Annotated[list[str] | None, _opt("l1")] = None,
    index_enabled: Annotated[bool, _opt("index-enabled")] = True,
    index_allow_incomplete: Annotated[bool, _opt("index-allow-incomplete")] = False,
    x_dag_vertices: Annotated[int, _opt("x-dag-vertices", min=0, max=1_000_000)] = 0,
    staking_port: Annotated[int, _opt("staking-port", min=0, max=65_435)] = 9651,
    pruning_enabled: Annotated[bool, _opt("pruning-enabled")] = False,
    historical_proof_query_window: Annotated[
        int, _opt("historical-proof-query-window", min=0)
    ] = 43_200,
    batch_request_limit: Annotated[int, _opt("batch-request-limit", min=1)] = 40,
    max_request_bytes: Annotated[int, _opt("max-request-bytes", min=1024)] = 5 * 1024 * 1024,
    rpc_gas_cap: Annotated[int, _opt("rpc-gas-cap", min=0)] = 50_000_000,
    rpc_evm_timeout: Annotated[float, _opt("rpc-evm-timeout", min=0)] = 5.0,
    http_read_header_timeout: Annotated[float, _opt("http-read-header-timeout", min=0)] = 30.0,
    http_max_header_bytes: Annotated[int, _opt("http-max-header-bytes", min=1024)] = 16 * 1024,
    http_max_connections: Annotated[int, _opt("http-max-connections", min=0)] = 1000,
    health_check_frequency: Annotated[float, _opt("health-check-frequency", min=0.1)] = 30.0,
    health_min_disk_bytes: Annotated[int, _opt("health-min-disk-bytes", min=0)] = 512 * 1024 * 1024,
    fsync: Annotated[bool, _opt("fsync")] = False,
    load_state: Annotated[Path | None, _opt("load-state")] = None,
    dump_state: Annotated[Path | None, _opt("dump-state")] = None,
    state: Annotated[Path | None, _opt("state")] = None,
    log_level: Annotated[str, _opt("log-level")] = "info",
    log_format: Annotated[str, _opt("log-format")] = "text",
) -> None:
    """Run a local network node: C-Chain with real EVM execution and the node's /ext APIs."""
    values = {k: v for k, v in locals().items()}
    settings = NetworkSettings(**{**values, "l1": tuple(l1) if l1 else None})
    _run_service(settings, _run_devnet)


def http_limits(settings: Any) -> HttpLimits:
    """The HTTP server's limits a service's settings give."""
    return HttpLimits(
        read_header_timeout=settings.http_read_header_timeout,
        max_header_bytes=settings.http_max_header_bytes,
        max_connections=settings.http_max_connections,
        forwarded_allow_ips=getattr(settings, "forwarded_allow_ips", ""),
    )


def data_api_error(status: int, message: str) -> tuple[bytes, bytes]:
    from snowfield.api.errors import error_body

    return b"application/json", orjson.dumps(error_body(status, message))


def metrics_api_error(status: int, message: str) -> tuple[bytes, bytes]:
    from snowfield.api.errors import error_body

    return b"application/json", orjson.dumps({**error_body(status, message), "message": [message]})


def _run_service(settings: Any, main: Callable[[Any], Coroutine[Any, Any, None]]) -> None:
    """Logging as the settings say, then `main(settings)` on uvloop; our errors end the
    command with their message and status 1."""
    logs.configure(settings.log_level, settings.log_format)
    try:
        # uvloop: the event loop uvicorn itself would pick; measurably faster I/O.
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(main(settings))
    except SnowfieldError as exc:
        console.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(1) from None


def build_node(settings: NetworkSettings) -> Any:
    """Builds the node over its data dir (or memory): each hosted chain opens its own journal
    and index state under `<data-dir>/<alias or blockchain id>/` and `<data-dir>/index/`."""
    from snowfield.node.node import Node
    from snowfield.node.storage import NodeStorage
    from snowfield.node.vms.avm.host import AvmFactory
    from snowfield.node.vms.evm.host import CorethFactory, SubnetEvmFactory
    from snowfield.node.vms.platform.host import PlatformFactory

    # The VMs the node runs (a new VM: its folder under node/vms/ and one entry here).
    vms = (PlatformFactory(), AvmFactory(), CorethFactory(), SubnetEvmFactory())
    node = Node(settings, NodeStorage(settings.data_dir, fsync=settings.fsync), vms)
    for name, genesis in l1_specs(settings.l1 or ()):
        node.ensure_l1(name, genesis)
    return node


def l1_specs(specs: tuple[str, ...]) -> list[tuple[str, bytes | None]]:
    """`--l1 NAME[=genesis.json]` values: each name with its genesis file's bytes (or None)."""
    found: list[tuple[str, bytes | None]] = []
    for spec in specs:
        name, _, path = spec.partition("=")
        name = name.strip()
        if not name or len(name) > 128 or not name.isascii() or not name.isprintable():
            raise InvalidParams(f"--l1 {spec!r}: NAME must be 1 to 128 printable ASCII characters")
        genesis = None
        if path:
            try:
                genesis = Path(path).read_bytes()
            except OSError as exc:
                raise InvalidParams(f"--l1 {spec!r}: cannot read {path}: {exc.strerror}") from None
        found.append((name, genesis))
    return found


async def _run_devnet(settings: NetworkSettings) -> None:
    from snowfield.node.app import create_node_app

    node = build_node(settings)
    _load_state_file(node, settings.state_to_load)
    _tune_gc()
    server = uvicorn.Server(
        server_config(
            create_node_app(node),
            host=settings.host,
            port=settings.port,
            limits=http_limits(settings),
            ws_max_size=settings.max_request_bytes,
        )
    )
    _print_banner(node, settings)
    tasks = [asyncio.create_task(server.serve())]
    if settings.demo:
        tasks.append(asyncio.create_task(_demo(node, settings, server)))
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGTERM, lambda: setattr(server, "should_exit", True))
    await tasks[0]
    for task in tasks[1:]:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    _dump_state_file(node, settings.state_to_dump)


def _load_state_file(node: Any, path: Path | None) -> None:
    from snowfield.node.vms.evm.methods.snapshots import load_state_blob

    if path is not None:
        try:
            blob = path.read_bytes()
        except OSError as exc:
            raise InvalidParams(f"cannot read state file {path}: {exc.strerror}") from None
        load_state_blob(node.c.chain, blob)


def _dump_state_file(node: Any, path: Path | None) -> None:
    """Written on a clean exit (as anvil); beside it, not in place, so a crash mid-write
    leaves the previous file."""
    from snowfield.node.vms.evm.methods.snapshots import dump_state_json

    if path is not None:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(dump_state_json(node.c.chain))
        tmp.replace(path)


def _report_stop(server: uvicorn.Server, what: str, exc: Exception) -> None:
    """A demo stopped on an error: a warning, unless the node is shutting down (its requests
    then fail by design)."""
    if not server.should_exit:
        log.warning("demo: %s stopped: %s", what, exc)


async def _demo(node: Any, settings: NetworkSettings, server: uvicorn.Server) -> None:
    from snowfield.errors import SnowfieldError
    from snowfield.rpc.client import RpcClient
    from snowfield.workload.demo import run_demo
    from snowfield.workload.platform_demo import demo_secret, run_platform_demo

    while not server.started:
        await asyncio.sleep(0.05)
    base = f"http://{settings.host}:{settings.port}"
    keys = [k.private_key for k in node.dev_keys]
    try:  # once: staking, a subnet, a chain, an L1, and a day later the rewards
        await run_platform_demo(base, demo_secret(keys), lambda line: log.info("demo: %s", line))
    except (SnowfieldError, RuntimeError, OSError) as exc:  # e.g. a restart: stakes exist
        _report_stop(server, "the P-Chain demo", exc)
    bc = f"{base}/ext/bc"
    # The C-Chain and every L1 of the devnet (`--l1`): the same demo on each.
    labels = ["C", *(c.blockchain_id for c in node.chains if c.vm.name == "subnet-evm")]

    async def one(label: str) -> None:
        # A chain the demo cannot drive stops only its own demo, not the others'. One whose
        # genesis funds no dev account (the P-Chain demo's subnet chain) is left alone.
        try:
            async with RpcClient(f"{bc}/{label}/rpc") as client:
                first = "0x" + node.dev_keys[0].address.hex()
                if int(await client.call("eth_getBalance", first, "latest"), 16) == 0:
                    log.info("demo %s: its genesis funds no dev account; no traffic", label)
                    return
                await run_demo(
                    client,
                    [k.private_key for k in node.dev_keys],
                    rounds=None,
                    interval=2.0,
                    stop=None,
                    log=lambda line: log.info("demo %s: %s", label, line),
                )
        except (SnowfieldError, RuntimeError, OSError) as exc:
            _report_stop(server, label, exc)

    # Atomic C→P exports beside the EVM traffic, from a key the EVM demo (keys 0-2) does not
    # use: a shared key's nonce would break the EVM demo's local nonce count.
    side_tasks = []
    if len(node.dev_keys) > 3:
        side_tasks.append(
            asyncio.create_task(_atomic_demo(base, node.dev_keys[-1].private_key, server))
        )
    # X-Chain traffic from keys the EVM demo (0-2) and the P-Chain demo (the last) leave alone.
    if len(node.dev_keys) > 5:
        side_tasks.append(asyncio.create_task(_x_demo(base, keys[3:-1], server)))
    # The demo L1's validator manager registers a validator (key 3 owns it on the L1; ewoq
    # pays on the P-Chain, which no other demo spends from).
    if len(node.dev_keys) > 3 and len(labels) > 1:
        side_tasks.append(asyncio.create_task(_manager_demo(base, labels[1:], keys[3], server)))
    # Cross-chain (ICM) messages between the C-Chain and the L1s, from key 5 (key 4 relays).
    if len(node.dev_keys) > 6 and len(labels) > 1:
        side_tasks.append(asyncio.create_task(_icm_demo(base, labels, keys[ICM_DEMO_KEY], server)))
    try:
        async with asyncio.TaskGroup() as group:
            for label in labels:
                group.create_task(one(label))
    finally:
        for task in side_tasks:
            task.cancel()


async def _manager_demo(base: str, l1s: list[str], owner: bytes, server: uvicorn.Server) -> None:
    from snowfield.crypto.keys import EWOQ_KEY
    from snowfield.errors import SnowfieldError
    from snowfield.node.l1_boot import MANAGER_ADDRESS
    from snowfield.workload.validator_manager import run_manager_demo

    for l1 in l1s:  # those whose genesis holds the manager contract
        try:
            await run_manager_demo(
                base,
                await _blockchain_id(base, l1),
                "0x" + MANAGER_ADDRESS.hex(),
                owner,
                EWOQ_KEY,
                lambda line: log.info("demo: %s", line),
            )
        except (SnowfieldError, RuntimeError, OSError) as exc:
            _report_stop(server, "the validator manager demo", exc)


async def _icm_demo(base: str, labels: list[str], secret: bytes, server: uvicorn.Server) -> None:
    from snowfield.errors import SnowfieldError
    from snowfield.workload.icm_demo import run_icm_demo

    chains = {(await _blockchain_id(base, label)): f"{base}/ext/bc/{label}/rpc" for label in labels}
    try:
        await run_icm_demo(
            chains,
            secret,
            rounds=None,
            interval=4.0,
            stop=None,
            log=lambda line: log.info("demo: %s", line),
        )
    except (SnowfieldError, RuntimeError, OSError) as exc:
        _report_stop(server, "the ICM demo", exc)


async def _blockchain_id(base: str, label: str) -> str:
    from snowfield.rpc.client import RpcClient

    async with RpcClient(f"{base}/ext/info") as info:
        reply = await info.call_object("info.getBlockchainID", {"alias": label})
    return str(reply["blockchainID"])


async def _x_demo(base: str, secrets: list[bytes], server: uvicorn.Server) -> None:
    from snowfield.errors import SnowfieldError
    from snowfield.workload.x_demo import run_x_demo

    try:
        await run_x_demo(
            base,
            secrets,
            rounds=None,
            interval=3.0,
            stop=None,
            log=lambda line: log.info("demo: %s", line),
        )
    except (SnowfieldError, RuntimeError, OSError) as exc:
        _report_stop(server, "the X-Chain demo", exc)


async def _atomic_demo(base: str, secret: bytes, server: uvicorn.Server) -> None:
    from snowfield.errors import SnowfieldError
    from snowfield.workload.atomic_demo import run_atomic_demo

    try:
        await run_atomic_demo(
            base,
            secret,
            rounds=None,
            interval=5.0,
            stop=None,
            log=lambda line: log.info("demo: %s", line),
        )
    except (SnowfieldError, OSError) as exc:
        _report_stop(server, "the C-Chain atomic demo", exc)


def _up_key(index: int) -> str:
    """A dev key of the devnet `make up` starts, as hex."""
    from snowfield.crypto.keys import derive_keys

    settings = NetworkSettings()
    return "0x" + derive_keys(settings.mnemonic, settings.accounts)[index].private_key.hex()


def _up_c_chain_id() -> str:
    """The C-Chain id of the devnet `make up` starts (its genesis: the default settings)."""
    from snowfield.crypto.keys import derive_keys
    from snowfield.node.primary_genesis import primary_genesis

    settings = NetworkSettings()
    keys = derive_keys(settings.mnemonic, settings.accounts)
    return primary_genesis(settings, [k.private_key for k in keys]).ids.c_chain


def _tune_gc() -> None:
    """The node keeps every block in memory and allocates heavily per transaction; with the
    default thresholds, collections over the growing heap cost ~25% of a transaction
    (measured in-process over 4,000 transfers). Objects alive at start-up are frozen."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def _print_banner(node: Any, settings: NetworkSettings) -> None:
    base = f"http://{settings.host}:{settings.port}"
    console.print("[bold]Dev accounts[/bold] (funded at genesis):", soft_wrap=True)
    for i, key in enumerate(node.dev_keys):
        console.print(f"({i}) {key.checksum_address}  0x{key.private_key.hex()}", soft_wrap=True)
    console.print(f"Mnemonic: [bold]{settings.mnemonic}[/bold]")
    names = {str(c.blockchain_id): c.name for c in node.platform.chain.blockchains()}
    for chain in node.chains:
        if chain.blockchain_id in names and chain.vm.name == "subnet-evm":
            chain_id = chain.runtime.chain.config.chain_id
            console.print(
                f"L1 {names[chain.blockchain_id]!r}: EVM chain id {chain_id}, "
                f"subnet {chain.subnet_id}",
                soft_wrap=True,
            )
        for suffix in chain.services:
            # WebSocket endpoints are dialled with ws://, not http://
            root = base.replace("http://", "ws://", 1) if suffix == "ws" else base
            console.print(
                f"{chain.label} {suffix}: {root}/ext/bc/{chain.label}/{suffix}", soft_wrap=True
            )
        if chain.alias:
            console.print(f"  (also /ext/bc/{chain.blockchain_id}/...)", soft_wrap=True)
        for name in chain.indexes:
            console.print(f"Index:        {base}/ext/index/{chain.label}/{name}", soft_wrap=True)
    console.print(f"Health:       {base}/ext/health", soft_wrap=True)
    console.print(f"Metrics:      {base}/ext/metrics")
    console.print(
        f"Network id {settings.network_id}, EVM chain id {settings.chain_id}, "
        + ("automine" if settings.block_time is None else f"block time {settings.block_time}s")
        + (f", data in {settings.data_dir}" if settings.data_dir else ", in memory")
    )


@app.command()
def index(
    rpc: Annotated[str, _opt("rpc", "index")] = "http://127.0.0.1:9650/ext/bc/C/rpc",
    ws: Annotated[str | None, _opt("ws", "index")] = None,
    db: Annotated[str, _opt("db", "index")] = "data/snowfield.db",
    chain_name: Annotated[str, _opt("chain-name", "index")] = "C-Chain",
    network: Annotated[str, _opt("network", "index")] = "testnet",
    description: Annotated[str, _opt("description", "index")] = "",
    explorer_url: Annotated[str | None, _opt("explorer-url", "index")] = None,
    blockchain_id: Annotated[str | None, _opt("blockchain-id", "index")] = None,
    subnet_id: Annotated[str | None, _opt("subnet-id", "index")] = None,
    token_name: Annotated[str, _opt("token-name", "index")] = "Avalanche",
    token_symbol: Annotated[str, _opt("token-symbol", "index")] = "AVAX",
    features: Annotated[str, _opt("features", "index")] = "nftIndexing",
    batch_blocks: Annotated[int, _opt("batch-blocks", "index", min=1, max=10_000)] = 100,
    traces: Annotated[str, _opt("traces", "index")] = "auto",
    rpc_batch_size: Annotated[int, _opt("rpc-batch-size", "index", min=1)] = 40,
    rpc_concurrency: Annotated[int, _opt("rpc-concurrency", "index", min=1, max=64)] = 4,
    poll_interval: Annotated[float, _opt("poll-interval", "index", min=0.05)] = 0.5,
    follow: Annotated[bool, _opt("follow", "index")] = True,
    until: Annotated[int | None, _opt("until", "index", min=0)] = None,
    discover: Annotated[bool, _opt("discover", "index")] = True,
    chain_rpc: Annotated[list[str] | None, _opt("chain-rpc", "index")] = None,
    metrics_port: Annotated[int | None, _opt("metrics-port", "index")] = None,
    log_level: Annotated[str, _opt("log-level", "index")] = "info",
    log_format: Annotated[str, _opt("log-format", "index")] = "text",
) -> None:
    """Index an EVM node (ours or any other) over JSON-RPC into SQLite or PostgreSQL."""
    values = {k: v for k, v in locals().items()}
    settings = IndexSettings(**{**values, "chain_rpc": tuple(chain_rpc) if chain_rpc else None})
    if settings.traces not in ("auto", "parity", "debug", "none"):
        raise typer.BadParameter("use auto, parity, debug or none", param_hint="--traces")
    _run_service(settings, _run_index)


async def _run_index(settings: Any) -> None:
    from snowfield.indexer.calls import Calls
    from snowfield.indexer.identity import learn_blockchain_id
    from snowfield.indexer.indexer import Indexer
    from snowfield.rpc.client import DocumentFetcher, RpcClient
    from snowfield.store.database import Database

    db = Database(settings.db)
    await asyncio.to_thread(db.migrate)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    fetcher = DocumentFetcher()
    async with RpcClient(settings.rpc, retries=5) as client:
        calls = Calls(
            client, batch_size=settings.rpc_batch_size, concurrency=settings.rpc_concurrency
        )
        chain_id = int(await client.call("eth_chainId"), 16)
        blockchain_id = settings.blockchain_id or await learn_blockchain_id(settings.rpc)
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


@app.command()
def aggregator(
    host: Annotated[str, _opt("host", "aggregator")] = "127.0.0.1",
    port: Annotated[int, _opt("port", "aggregator")] = 8082,
    node_url: Annotated[str, _opt("node-url", "aggregator")] = "http://127.0.0.1:9650",
    deadline: Annotated[float, _opt("deadline", "aggregator", min=0.1, max=600)] = 20.0,
    log_level: Annotated[str, _opt("log-level", "aggregator")] = "info",
    log_format: Annotated[str, _opt("log-format", "aggregator")] = "text",
) -> None:
    """Serve a Warp signature aggregator with the real aggregator's HTTP API (icm-services'
    /aggregate-signatures), asking a node's validators over the peer-to-peer network."""
    values = dict(locals())
    from snowfield.config import AggregatorSettings

    settings = AggregatorSettings(**values)
    _run_service(settings, _run_aggregator)


async def _run_aggregator(settings: Any) -> None:
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


@app.command()
def relayer(
    node_url: Annotated[str, _opt("node-url", "relayer")] = "http://127.0.0.1:9650",
    key: Annotated[str | None, _opt("key", "relayer")] = None,
    reward_address: Annotated[str | None, _opt("reward-address", "relayer")] = None,
    state_file: Annotated[str, _opt("state-file", "relayer")] = "data/relayer.json",
    chain: Annotated[list[str] | None, _opt("chain", "relayer")] = None,
    interval: Annotated[float, _opt("interval", "relayer", min=0.05)] = 1.0,
    log_level: Annotated[str, _opt("log-level", "relayer")] = "info",
    log_format: Annotated[str, _opt("log-format", "relayer")] = "text",
) -> None:
    """Relay ICM messages between a node's EVM chains: follow SendCrossChainMessage, have the
    validators sign over the peer-to-peer network, deliver with receiveCrossChainMessage."""
    values = dict(locals())
    from snowfield.config import RelayerSettings

    settings = RelayerSettings(**{**values, "chain": tuple(chain) if chain else None})
    if not settings.key:
        console.print("[red]error:[/red] --key (or SNOWFIELD_RELAYER_KEY) is required")
        raise typer.Exit(2)
    _run_service(settings, _run_relayer)


async def _run_relayer(settings: Any) -> None:
    from snowfield.crypto.keys import key_from_bytes
    from snowfield.workload.icm_relayer import Relayer, chains_alias, discover_chains

    secret = bytes.fromhex(settings.key.removeprefix("0x"))
    reward = settings.reward_address or key_from_bytes(secret).checksum_address
    chains = await discover_chains(settings.node_url)
    if settings.chain:
        named = {chains_alias(c, chains) for c in settings.chain}
        unknown = sorted(named - set(chains))
        if unknown:
            console.print(f"[red]error:[/red] no EVM chain {', '.join(unknown)} on the node")
            raise typer.Exit(2)
        chains = {c: url for c, url in chains.items() if c in named}
    state = Path(settings.state_file)
    state.parent.mkdir(parents=True, exist_ok=True)
    relay = Relayer(
        chains,
        settings.node_url,
        secret,
        reward,
        state,
        discover=None if settings.chain else lambda: discover_chains(settings.node_url),
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    console.print(f"Relayer: {len(chains)} chains of {settings.node_url}, rewards to {reward}")
    try:
        await relay.run(settings.interval, stop)
    finally:
        await relay.close()


@app.command("index-primary")
def index_primary(
    node: Annotated[str, _opt("node", "index-primary")] = "http://127.0.0.1:9650",
    db: Annotated[str, _opt("db", "index-primary")] = "data/snowfield.db",
    batch_containers: Annotated[
        int, _opt("batch-containers", "index-primary", min=1, max=1024)
    ] = 256,
    poll_interval: Annotated[float, _opt("poll-interval", "index-primary", min=0.05)] = 1.0,
    follow: Annotated[bool, _opt("follow", "index-primary")] = True,
    log_level: Annotated[str, _opt("log-level", "index-primary")] = "info",
    log_format: Annotated[str, _opt("log-format", "index-primary")] = "text",
) -> None:
    """Index a node's primary network (P-Chain) over its public interfaces."""
    settings = PrimaryIndexSettings(**{k: v for k, v in locals().items()})
    _run_service(settings, _run_index_primary)


async def _run_index_primary(settings: Any) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
    from snowfield.store.database import Database

    db = Database(settings.db)
    await asyncio.to_thread(db.migrate)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    source = PlatformSource(settings.node)
    indexer = PrimaryIndexer(db, source, batch_size=settings.batch_containers)
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


async def _index_network(
    indexer: Any, settings: Any, stop: asyncio.Event, db: Any, fetcher: Any, chain_id: int
) -> None:
    """The configured chain, and beside it every other EVM chain found or named."""
    from snowfield.indexer.network import ChainTarget, NetworkFollower, discover, probe

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
        group.create_task(_index_work(indexer, settings, stop))
        if not settings.discover and not settings.chain_rpc:
            return
        if following:
            group.create_task(NetworkFollower(follow, find).run(stop))
        else:
            for target in await find():
                group.create_task(follow(target))


async def _index_chain(
    target: Any, settings: Any, stop: asyncio.Event, db: Any, fetcher: Any
) -> None:
    from snowfield.indexer.calls import Calls
    from snowfield.indexer.indexer import Indexer
    from snowfield.indexer.network import chain_row
    from snowfield.rpc.client import RpcClient
    from snowfield.store.writes import upsert_chain

    features = tuple(f for f in settings.features.split(",") if f)
    row = chain_row(target, settings.network, features)
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


async def _index_work(indexer: Any, settings: Any, stop: asyncio.Event) -> None:
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


def _record_chain(db: Any, chain_id: int, blockchain_id: str | None, settings: Any) -> None:
    from snowfield.store.rows import ChainRow
    from snowfield.store.writes import upsert_chain

    features = tuple(f for f in settings.features.split(",") if f)
    upsert_chain(
        db,
        ChainRow(
            chain_id=chain_id,
            name=settings.chain_name,
            network=settings.network,
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


async def _serve_metrics(port: int | None, render: Any) -> asyncio.Server | None:
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


@app.command()
def serve(
    host: Annotated[str, _opt("host", "serve")] = "127.0.0.1",
    port: Annotated[int, _opt("port", "serve", min=1, max=65535)] = 8080,
    db: Annotated[str, _opt("db", "serve")] = "data/snowfield.db",
    redis: Annotated[str | None, _opt("redis", "serve")] = None,
    rate_anonymous: Annotated[int, _opt("rate-anonymous", "serve", min=1)] = 6000,
    rate_keyed: Annotated[int, _opt("rate-keyed", "serve", min=1)] = 8000,
    metrics_api_port: Annotated[int, _opt("metrics-api-port", "serve", min=1, max=65535)] = 8081,
    metrics_rate: Annotated[int, _opt("metrics-rate", "serve", min=1)] = 6000,
    forwarded_allow_ips: Annotated[str, _opt("forwarded-allow-ips", "serve")] = "",
    http_read_header_timeout: Annotated[
        float, _opt("http-read-header-timeout", "serve", min=0)
    ] = 30.0,
    http_max_header_bytes: Annotated[int, _opt("http-max-header-bytes", "serve", min=1024)] = 16
    * 1024,
    http_max_connections: Annotated[int, _opt("http-max-connections", "serve", min=0)] = 1000,
    node_url: Annotated[str | None, _opt("node-url", "serve")] = None,
    explorer_rpc: Annotated[str | None, _opt("explorer-rpc", "serve")] = None,
    explorer_metrics_api: Annotated[str | None, _opt("explorer-metrics-api", "serve")] = None,
    explorer_api_key: Annotated[str | None, _opt("explorer-api-key", "serve")] = None,
    log_level: Annotated[str, _opt("log-level", "serve")] = "info",
    log_format: Annotated[str, _opt("log-format", "serve")] = "text",
) -> None:
    """Serve the data API and the metrics API over an indexed database (OpenAPI of each at
    /openapi.json), and the explorer at / of the data API."""
    from snowfield.config import ServeSettings

    settings = ServeSettings(
        host=host,
        port=port,
        db=db,
        redis=redis,
        rate_anonymous=rate_anonymous,
        rate_keyed=rate_keyed,
        metrics_api_port=metrics_api_port,
        metrics_rate=metrics_rate,
        forwarded_allow_ips=forwarded_allow_ips,
        http_read_header_timeout=http_read_header_timeout,
        http_max_header_bytes=http_max_header_bytes,
        http_max_connections=http_max_connections,
        node_url=node_url,
        explorer_rpc=explorer_rpc,
        explorer_metrics_api=explorer_metrics_api,
        explorer_api_key=explorer_api_key,
        log_level=log_level,
        log_format=log_format,
    )
    _run_service(settings, _run_serve)


async def _run_serve(settings: Any) -> None:
    from snowfield.aggregator.service import AggregatorService
    from snowfield.api.app import create_data_app
    from snowfield.api.gate import RatePolicy
    from snowfield.api.ratelimit import Limiter, MemoryLimiter, RedisLimiter
    from snowfield.store.database import Database

    db = Database(settings.db)
    await asyncio.to_thread(db.migrate)
    limiter: Limiter = RedisLimiter(settings.redis) if settings.redis else MemoryLimiter()
    policy = RatePolicy(anonymous=settings.rate_anonymous, keyed=settings.rate_keyed)
    signatures = AggregatorService(settings.node_url) if settings.node_url else None
    app = create_data_app(
        db, policy=policy, limiter=limiter, explorer=_explorer(settings), signatures=signatures
    )
    server = uvicorn.Server(
        server_config(
            app,
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
    try:
        await _serve_together(server, metrics)
    finally:
        db.close()


def _explorer(settings: Any) -> Any:
    from snowfield.api.site import ExplorerConfig

    return ExplorerConfig(
        rpc=settings.explorer_rpc,
        metrics_api=settings.explorer_metrics_api,
        metrics_port=settings.metrics_api_port,
        api_key=settings.explorer_api_key,
    )


def _metrics_server(db: Any, settings: Any) -> uvicorn.Server:
    from snowfield.api.metrics import create_metrics_app
    from snowfield.api.ratelimit import Limiter, MemoryLimiter, RedisLimiter

    # Its own limiter: each app closes its limiter when it stops.
    limiter: Limiter = RedisLimiter(settings.redis) if settings.redis else MemoryLimiter()
    app = create_metrics_app(db, limiter=limiter, rate_per_minute=settings.metrics_rate)
    config = server_config(
        app,
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


keys_app = typer.Typer(no_args_is_help=True, help="API keys of the data service.")
app.add_typer(keys_app, name="keys")
_DB_OPTION = _opt("db", "serve")


def _open_db(url: str) -> Any:
    from snowfield.store.database import Database

    db = Database(url)
    db.migrate()
    return db


@keys_app.command("create")
def keys_create(
    name: Annotated[str, typer.Option(help="Who or what the key is for.")],
    chains: Annotated[
        str | None, typer.Option(help="Comma-separated EVM chain ids the key may query.")
    ] = None,
    rate_per_minute: Annotated[
        int | None, typer.Option(min=1, help="Compute units per minute for this key.")
    ] = None,
    db: Annotated[str, _DB_OPTION] = "data/snowfield.db",
) -> None:
    """Create a key and print it; it is shown only this once (only its SHA-256 is stored)."""
    from snowfield.store.keys import create_key

    try:
        chain_ids = None if chains is None else [int(c) for c in chains.split(",") if c.strip()]
    except ValueError:
        console.print("[red]error:[/red] --chains must be comma-separated chain ids")
        raise typer.Exit(2) from None
    key, secret = create_key(_open_db(db), name, chains=chain_ids, rate_per_minute=rate_per_minute)
    console.print(f"Created key {key.id} ({key.name}); store it now, it is not shown again:")
    print(secret)


@keys_app.command("list")
def keys_list(db: Annotated[str, _DB_OPTION] = "data/snowfield.db") -> None:
    """List keys (never their secrets)."""
    from snowfield.store.keys import list_keys

    for key in list_keys(_open_db(db)):
        chains = "all" if key.chains is None else ",".join(map(str, key.chains))
        rate = "default" if key.rate_per_minute is None else str(key.rate_per_minute)
        state = "active" if key.active else f"revoked@{key.revoked}"
        print(f"{key.id}\t{key.name}\tchains={chains}\trate={rate}\t{state}")


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="The key's id, as `keys list` shows it.")],
    db: Annotated[str, _DB_OPTION] = "data/snowfield.db",
) -> None:
    """Revoke a key: requests with it answer 401 from then on."""
    from snowfield.store.keys import revoke_key

    if not revoke_key(_open_db(db), key_id):
        console.print(f"[red]error:[/red] no active key {key_id}")
        raise typer.Exit(1)
    console.print(f"Revoked key {key_id}")


contracts_app = typer.Typer(no_args_is_help=True, help="Curated contract metadata.")
app.add_typer(contracts_app, name="contracts")


@contracts_app.command("load")
def contracts_load(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="JSON file.")],
    db: Annotated[str, _DB_OPTION] = "data/snowfield.db",
) -> None:
    """Load curated contract metadata: a JSON list of {chainId, address, name, ...} objects."""
    import json

    from snowfield.store.curation import parse_curated, save_curated

    try:
        entries = json.loads(file.read_text())
        if not isinstance(entries, list):
            raise SnowfieldError("the file must hold a JSON list of objects")
        parsed = [parse_curated(e, f"entry {i}") for i, e in enumerate(entries)]
    except (ValueError, SnowfieldError) as exc:
        console.print(f"[red]error:[/red] {getattr(exc, 'message', exc)}")
        raise typer.Exit(1) from None
    save_curated(_open_db(db), parsed)
    console.print(f"Loaded metadata of {len(parsed)} contracts")


def demo_l1_genesis(data_dir: Path) -> Path:
    """`make up`'s L1: the devnet's default L1 genesis with every precompile active, dev
    account 0 their admin (the demo calls each), the other dev accounts allowed, the ICM
    messenger's one-time deployer (its keyless deployment must pass the allow lists), and our
    ValidatorManager at the manager address the devnet's conversion names."""
    import time

    from snowfield.crypto.keys import EWOQ_KEY, derive_keys, key_from_bytes
    from snowfield.node.l1_boot import DEFAULT_L1_CHAIN_ID, MANAGER_ADDRESS, devnet_l1_genesis
    from snowfield.workload.icm import KEYLESS
    from snowfield.workload.validator_manager import genesis_with_manager

    defaults = NetworkSettings()
    keys = [*derive_keys(defaults.mnemonic, defaults.accounts), key_from_bytes(EWOQ_KEY)]
    deployer = bytes.fromhex(KEYLESS.deployer[2:])
    genesis = devnet_l1_genesis(
        DEFAULT_L1_CHAIN_ID,
        [*(k.address for k in keys), deployer],
        defaults.balance * 10**18,
        defaults.gas_limit,
        int(time.time()),
        precompiles=True,
    )
    genesis = genesis_with_manager(genesis, MANAGER_ADDRESS)
    path = data_dir / "demo-l1-genesis.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(genesis)
    return path


@app.command()
def up(
    data_dir: Annotated[
        Path, typer.Option(help="Where chain data, the index and logs live.")
    ] = Path("data"),
    node_port: Annotated[int, typer.Option(help="Port of the devnet node.")] = 9650,
    api_port: Annotated[int, typer.Option(help="Port of the data API.")] = 8080,
    metrics_api_port: Annotated[int, typer.Option(help="Port of the metrics API.")] = 8081,
) -> None:
    """Start everything on this machine: devnet with demo traffic, indexer, data and metrics
    APIs."""
    from snowfield.supervisor import Child, supervise

    python = [sys.executable, "-m", "snowfield"]
    rpc = f"http://127.0.0.1:{node_port}/ext/bc/C/rpc"
    db = str(data_dir / "snowfield.db")
    logs_dir = data_dir / "logs"
    children = [
        Child(
            "devnet",
            [
                *python,
                "devnet",
                "--demo",
                "--x-dag-vertices",
                str(UP_X_DAG_VERTICES),
                "--l1",
                f"snowfield demo L1={demo_l1_genesis(data_dir)}",
                "--data-dir",
                str(data_dir / "devnet"),
                "--port",
                str(node_port),
                "--log-level",
                "warn",
            ],
            ready=f"http://127.0.0.1:{node_port}/ext/health/liveness",
            log=None,  # its banner (funded accounts, URLs) belongs on the terminal
        ),
        Child(
            "indexer",
            [
                *python,
                "index",
                "--rpc",
                rpc,
                "--db",
                db,
                "--ws",
                f"ws://127.0.0.1:{node_port}/ext/bc/C/ws",
                "--blockchain-id",
                _up_c_chain_id(),
                "--description",
                "The local devnet's C-Chain",
                "--poll-interval",
                "0.25",
            ],
            ready=None,
            log=logs_dir / "indexer.log",
        ),
        Child(
            "primary",
            [
                *python,
                "index-primary",
                "--node",
                f"http://127.0.0.1:{node_port}",
                "--db",
                db,
                "--poll-interval",
                "0.5",
            ],
            ready=None,
            log=logs_dir / "primary-indexer.log",
        ),
        Child(
            "relayer",
            [
                *python,
                "relayer",
                "--node-url",
                f"http://127.0.0.1:{node_port}",
                "--key",
                _up_key(ICM_RELAYER_KEY),
                "--state-file",
                str(data_dir / "relayer.json"),
            ],
            ready=None,
            log=logs_dir / "relayer.log",
        ),
        Child(
            "api",
            [
                *python,
                "serve",
                "--db",
                db,
                "--port",
                str(api_port),
                "--metrics-api-port",
                str(metrics_api_port),
                "--explorer-rpc",
                rpc,
                "--node-url",
                f"http://127.0.0.1:{node_port}",
            ],
            ready=f"http://127.0.0.1:{api_port}/v1/chains",
            log=logs_dir / "api.log",
        ),
    ]
    urls = {
        "Explorer": f"http://127.0.0.1:{api_port}/",
        "Data API": f"http://127.0.0.1:{api_port}/v1/chains",
        "Data API OpenAPI": f"http://127.0.0.1:{api_port}/openapi.json",
        "Primary network": f"http://127.0.0.1:{api_port}/v1/networks/fuji/subnets",
        "Metrics API": f"http://127.0.0.1:{metrics_api_port}/v2/chains/43112/metrics/txCount"
        "?timeInterval=hour",
        "C-Chain JSON-RPC": rpc,
        "Logs": str(logs_dir),
    }
    raise typer.Exit(supervise(children, urls, console))


def main() -> None:
    app()
