"""`snowfield devnet`: a local Avalanche network in one process, served on the node's port."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
from pathlib import Path
from typing import Any

import uvicorn

from snowfield.cli.compose import build_node, http_limits
from snowfield.cli.options import settings_command
from snowfield.cli.service import console, on_signals, run_service
from snowfield.config import NetworkSettings
from snowfield.errors import InvalidParams
from snowfield.server import server_config


@settings_command(NetworkSettings)
def devnet(settings: NetworkSettings) -> None:
    """Run a local Avalanche network: P-Chain, X-Chain, C-Chain and custom EVM L1s.

    One node hosts the P-Chain (staking, subnets, L1 conversions), the X-Chain, the C-Chain
    with real EVM execution and any custom EVM L1s (--l1), with its validators (staking
    certificates, BLS keys, the peer-to-peer protocol) and funded dev accounts, and serves the
    /ext APIs: JSON-RPC and WebSocket per chain, index, info, health, admin and metrics."""
    run_service(settings, _run_devnet)


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
    on_signals(lambda: setattr(server, "should_exit", True), (signal.SIGTERM,))
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


async def _demo(node: Any, settings: NetworkSettings, server: uvicorn.Server) -> None:
    """Every demo (workload.orchestra) against this node once it serves, over its APIs."""
    from snowfield.node.l1_boot import MANAGER_ADDRESS
    from snowfield.workload.orchestra import DemoNetwork, run_demos

    while not server.started:
        await asyncio.sleep(0.05)
    network = DemoNetwork(
        base=f"http://{settings.host}:{settings.port}",
        keys=[k.private_key for k in node.dev_keys],
        l1s=lambda: [c.blockchain_id for c in node.chains if c.vm.name == "subnet-evm"],
        manager="0x" + MANAGER_ADDRESS.hex(),
    )
    await run_demos(network, lambda: bool(server.should_exit))


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
        f"Network id {settings.network_id}, EVM chain id {settings.c_chain_id}, "
        + ("automine" if settings.block_time is None else f"block time {settings.block_time}s")
        + (f", data in {settings.data_dir}" if settings.data_dir else ", in memory")
    )
