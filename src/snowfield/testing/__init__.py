"""Builders for tests and scripts: a real devnet served on 127.0.0.1 in a background thread,
or as a separate process (for kill -9). Ports (`ports`) and the programs from npm (`npm`:
anvil, Node.js scripts with client libraries) have their own modules, re-exported here."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from snowfield.cli.compose import build_node, http_limits
from snowfield.config import DevnetSettings
from snowfield.node.app import create_node_app
from snowfield.server import DEFAULT_LIMITS, ErrorRenderer, HttpLimits, plain_text, server_config
from snowfield.store.database import Database
from snowfield.supervisor import terminate
from snowfield.testing.npm import ANVIL_DIR as ANVIL_DIR
from snowfield.testing.npm import NPM_CLIENTS as NPM_CLIENTS
from snowfield.testing.npm import anvil_binary as anvil_binary
from snowfield.testing.npm import npm_package as npm_package
from snowfield.testing.npm import run_node_script as run_node_script
from snowfield.testing.npm import serve_anvil as serve_anvil
from snowfield.testing.ports import free_port as free_port
from snowfield.testing.ports import listening_socket as listening_socket

PG_ENV = "SNOWFIELD_TEST_PG"
ADDRESS_IN_USE = "address already in use"
DEV_KEYS = [
    bytes.fromhex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
    bytes.fromhex("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"),
    bytes.fromhex("5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"),
]


@dataclass(frozen=True, slots=True)
class RunningNode:
    base: str
    node: Any

    @property
    def rpc(self) -> str:
        return f"{self.base}/ext/bc/C/rpc"

    @property
    def ws(self) -> str:
        return self.base.replace("http://", "ws://") + "/ext/bc/C/ws"


@contextlib.contextmanager
def serve_devnet(**overrides: Any) -> Iterator[RunningNode]:
    """A devnet node on a free loopback port, stopped on exit."""
    sock = listening_socket(overrides.pop("port", 0))
    try:
        port = int(sock.getsockname()[1])
        settings = dataclasses.replace(DevnetSettings(port=port, staking_port=0), **overrides)
        node = build_node(settings)
    except BaseException:
        sock.close()
        raise
    try:
        app = create_node_app(node)
        limits = http_limits(settings)
        with serve_asgi(app, sock=sock, name="devnet", limits=limits) as base:
            yield RunningNode(base, node)
    finally:
        if node.admin.temporary:
            shutil.rmtree(node.admin.directory, ignore_errors=True)


@contextlib.contextmanager
def serve_asgi(
    app: Any,
    *,
    port: int | None = None,
    sock: socket.socket | None = None,
    name: str = "app",
    limits: HttpLimits = DEFAULT_LIMITS,
    render: ErrorRenderer = plain_text,
) -> Iterator[str]:
    """An ASGI app on a real uvicorn server at 127.0.0.1 (on `sock`, else a socket bound here at
    `port` or a free one), in a background thread, stopped on exit; yields the base URL."""
    if sock is None:
        sock = listening_socket(port or 0)
    with sock:
        port = int(sock.getsockname()[1])
        config = server_config(app, host="127.0.0.1", port=port, limits=limits, render=render)
        server = uvicorn.Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name=f"{name}-server", daemon=True
        )
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError(f"{name} did not start")
            time.sleep(0.02)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            thread.join(timeout=30)


@dataclass
class DevnetProcess:
    """`snowfield devnet` as a child process, so a test can kill -9 it."""

    data_dir: Path
    port: int
    extra: tuple[str, ...] = ()
    proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def rpc(self) -> str:
        return f"{self.base}/ext/bc/C/rpc"

    def start(self, timeout: float = 60.0) -> None:
        """Starts the child and waits for its liveness. If another process took the port since
        it was chosen (`free_port` cannot hold it for a child), it moves to a fresh one."""
        for _ in range(3):
            if self._start(timeout):
                return
            self.port = free_port()
        raise RuntimeError(f"devnet found no free port: {self.port} in use")

    def _start(self, timeout: float) -> bool:
        cmd = [
            sys.executable,
            "-m",
            "snowfield",
            "devnet",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--log-level",
            "warn",
            *self.extra,
        ]
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.data_dir.parent / f"devnet-{self.port}.log"
        with open(log_path, "ab") as log_file:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log_file)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = log_path.read_text(errors="replace")[-4000:]
                if ADDRESS_IN_USE in err:
                    return False
                raise RuntimeError(f"devnet exited with {self.proc.returncode}: {err}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/ext/health/liveness", timeout=1).status_code == 200:
                    return True
            time.sleep(0.1)
        raise RuntimeError("devnet did not start in time")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None:
            terminate(self.proc)


def database_urls(tmp_path: Path) -> list[str]:
    """A SQLite file always; a fresh PostgreSQL schema too when SNOWFIELD_TEST_PG is set
    (its value is the server URL, or 1 for postgresql://127.0.0.1:5432/test)."""
    urls = [str(tmp_path / "snowfield.db")]
    pg = os.environ.get(PG_ENV)
    if pg:
        base = pg if pg.startswith("postgresql://") else "postgresql://127.0.0.1:5432/test"
        urls.append(f"{base}?schema=t_{os.getpid()}_{time.monotonic_ns()}")
    return urls


@contextlib.contextmanager
def open_database(url: str) -> Iterator[Database]:
    """A migrated database, dropped (PostgreSQL schema) or left in tmp (SQLite) afterwards."""
    db = Database(url)
    db.migrate()
    try:
        yield db
    finally:
        schema = db.url.schema
        db.close()
        if schema:
            import psycopg

            with psycopg.connect(db.url.target, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def run_demo_rounds(rpc: str, rounds: int, keys: list[bytes] | None = None) -> Any:
    """Deploys the demo contracts and sends `rounds` rounds of demo traffic; the report."""
    import asyncio

    from snowfield.rpc.client import RpcClient
    from snowfield.workload.demo import run_demo

    async def go() -> Any:
        async with RpcClient(rpc) as client:
            return await run_demo(
                client, keys or DEV_KEYS, rounds=rounds, interval=0, stop=None, log=lambda _: None
            )

    return asyncio.run(go())


def index_node(
    db: Database,
    rpc: str,
    *,
    until: int | None = None,
    batch_blocks: int = 25,
    traces: str = "auto",
) -> Any:
    """Indexes the node at `rpc` into `db` up to `until` (default: its head); the Indexer."""
    import asyncio

    from snowfield.indexer.calls import Calls
    from snowfield.indexer.indexer import Indexer
    from snowfield.rpc.client import DocumentFetcher, RpcClient

    async def go() -> Any:
        fetcher = DocumentFetcher()
        async with RpcClient(rpc) as client:
            chain_id = int(await client.call("eth_chainId"), 16)
            indexer = Indexer(
                db, Calls(client), fetcher, chain_id, batch_blocks=batch_blocks, traces=traces
            )
            await indexer.sync(until)
        await fetcher.aclose()
        return indexer

    return asyncio.run(go())


def custom_evm_chain(
    genesis: bytes,
    *,
    clock: Any = None,
    journal: Any = None,
) -> Any:
    """An in-process custom EVM chain (SubnetEvmRules) built from its genesis JSON, with a
    memory journal unless one is given; `clock` defaults to the genesis time, standing still."""
    from snowfield.chains.evm.chain import EvmChain
    from snowfield.chains.evm.customgenesis import parse_genesis
    from snowfield.chains.journal import MemoryJournal

    parsed = parse_genesis(genesis)
    start = float(parsed.timestamp)
    return EvmChain(
        parsed.config,
        journal if journal is not None else MemoryJournal(),
        clock=clock if clock is not None else (lambda: start),
        genesis_time=parsed.timestamp,
    )


@contextlib.contextmanager
def serve_custom_evm(genesis: bytes) -> Iterator[tuple[str, Any]]:
    """A custom EVM chain (automining, on the wall clock) whose eth_, net_, web3_ and custom
    EVM methods are served over JSON-RPC at 127.0.0.1; yields (url, chain). Hosting it at
    /ext/bc/<id>/rpc inside a devnet is the node's job; this serves the chain alone."""
    from snowfield.node.vms.evm.methods.customevm import custom_evm_methods
    from snowfield.node.vms.evm.methods.eth import ProofPolicy, eth_methods
    from snowfield.node.vms.evm.methods.logs import log_methods
    from snowfield.node.vms.evm.methods.web3net import web3_net_methods
    from snowfield.node.vms.evm.runtime import EvmRuntime
    from snowfield.rpc.dispatch import Dispatcher

    chain = custom_evm_chain(genesis, clock=time.time)
    runtime = EvmRuntime(chain, blockchain_id="custom-evm")
    rpc = Dispatcher(
        [
            *web3_net_methods("snowfield/v0.1.0", chain.config.chain_id),
            *eth_methods(runtime, ProofPolicy(), []),
            *log_methods(runtime),
            *custom_evm_methods(runtime),
        ]
    )
    started: list[bool] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if not started:
            await runtime.start()
            started.append(True)
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        reply = await rpc.handle_bytes(body) or b""
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": reply})

    with serve_asgi(app, name="custom-evm") as url:
        yield url, chain


# subnet-evm's VM id, as avalanchego's info.getVMs lists it.
CUSTOM_EVM_VM_ID = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"


@contextlib.contextmanager
def serve_devnet_with_custom_evm(
    genesis: bytes, **overrides: Any
) -> Iterator[tuple[RunningNode, str]]:
    """A devnet node that also hosts a custom EVM chain built from `genesis` at
    /ext/bc/<blockchainID>/rpc and /ws (with the node's clock, limits and dev accounts'
    methods); yields (node, blockchain id). Until CreateChainTx starts such chains, tests
    register it here directly."""
    from snowfield.chains.evm.chain import EvmChain
    from snowfield.chains.evm.customgenesis import parse_genesis
    from snowfield.chains.journal import MemoryJournal
    from snowfield.config import EvmChainSettings
    from snowfield.crypto.hashing import sha256
    from snowfield.formats.cb58 import encode_cb58
    from snowfield.node.registry import EvmRpc, EvmWebSocket, HostedChain, Vm
    from snowfield.node.vms.evm.host import evm_health
    from snowfield.node.vms.evm.runtime import EvmRuntime
    from snowfield.node.vms.evm.service import evm_rpc_methods
    from snowfield.node.warp_signing import EvmVerifier
    from snowfield.node.warp_validators import snow_context
    from snowfield.rpc.dispatch import Dispatcher, Limits

    settings = dataclasses.replace(DevnetSettings(port=free_port(), staking_port=0), **overrides)
    node = build_node(settings)
    parsed = parse_genesis(genesis)
    blockchain_id = encode_cb58(sha256(genesis))
    snow = snow_context(settings.network_id, blockchain_id, node.ids.primary_subnet, node.chains)
    chain = EvmChain(
        parsed.config,
        MemoryJournal(),
        clock=node.clock,
        genesis_time=parsed.timestamp,
        snow=snow,
    )
    runtime = EvmRuntime(chain, blockchain_id=blockchain_id)
    chain_settings = EvmChainSettings(
        alias=None,
        chain_id=parsed.config.chain_id,
        gas_limit=parsed.config.gas_limit,
        block_time=None,
        genesis_timestamp=parsed.timestamp,
        pruning_enabled=False,
        historical_proof_query_window=0,
    )
    limits = Limits(
        batch_items=settings.batch_request_limit, request_bytes=settings.max_request_bytes
    )
    rpc = Dispatcher(evm_rpc_methods(runtime, chain_settings, node.context), limits)
    node.register(
        HostedChain(
            alias=None,
            blockchain_id=blockchain_id,
            subnet_id=node.ids.primary_subnet,
            vm=Vm(CUSTOM_EVM_VM_ID, "subnetevm"),
            runtime=runtime,
            services={"rpc": EvmRpc(rpc), "ws": EvmWebSocket(rpc, runtime.hub)},
            health=lambda: evm_health(runtime.ids),
            warp=EvmVerifier(lambda: chain),
        )
    )
    try:
        app = create_node_app(node)
        with serve_asgi(
            app, port=settings.port, name="devnet", limits=http_limits(settings)
        ) as base:
            yield RunningNode(base, node), blockchain_id
    finally:
        if node.admin.temporary:
            shutil.rmtree(node.admin.directory, ignore_errors=True)
