"""Builders for tests and scripts: a real devnet served on 127.0.0.1 in a background thread,
or as a separate process (for kill -9)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from snowfield.cli import build_node, http_limits
from snowfield.config import DevnetSettings
from snowfield.node.app import create_node_app
from snowfield.server import DEFAULT_LIMITS, ErrorRenderer, HttpLimits, plain_text, server_config
from snowfield.store.database import Database
from snowfield.supervisor import terminate

PG_ENV = "SNOWFIELD_TEST_PG"
ADDRESS_IN_USE = "address already in use"
DEV_KEYS = [
    bytes.fromhex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
    bytes.fromhex("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"),
    bytes.fromhex("5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"),
]


def free_port() -> int:
    """A loopback port free now, for a child process to bind. It is drawn from below the
    kernel's ephemeral range: a port in that range can be taken, before the child binds it, by
    any outgoing connection the kernel gives it to (CI saw it). In-process servers bind their
    own socket instead (`listening_socket`)."""
    low = _ephemeral_low()
    for _ in range(64):
        port = random.randrange(max(1024, low - 20_000), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (Linux's default where unreadable)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def listening_socket(port: int = 0) -> socket.socket:
    """A socket bound at 127.0.0.1 (a free port unless given), to hand to uvicorn, so no other
    process can take the port between choosing it and serving on it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return sock


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


ANVIL_DIR = Path(__file__).resolve().parents[2] / ".bench"
ANVIL_PACKAGE = "@foundry-rs/anvil-linux-amd64"
# Real client libraries the tests drive against the devnet, pinned to the versions the
# reference notes were measured with (npm installs them under .bench/ on first use).
NPM_CLIENTS = {
    "viem": "viem@2",
    "ethers": "ethers@6",
    "@avalabs/avalanchejs": "@avalabs/avalanchejs@5.2.0",
    "@avalanche-sdk/client": "@avalanche-sdk/client@0.1.1",
    # Drives the system's Chromium (/usr/bin/chromium) for the explorer's tests; no browser
    # download of its own.
    "playwright-core": "playwright-core@1",
}
_npm_lock = threading.Lock()


def npm_package(name: str, spec: str | None = None) -> Path:
    """The folder of npm package `name` under .bench/node_modules, installed on first use."""
    folder = ANVIL_DIR / "node_modules" / name
    with _npm_lock:
        if not (folder / "package.json").exists():
            ANVIL_DIR.mkdir(exist_ok=True)
            subprocess.run(
                ["npm", "install", "--silent", "--no-audit", "--no-fund", spec or name],
                cwd=ANVIL_DIR,
                check=True,
                stdout=subprocess.DEVNULL,
            )
    return folder


def anvil_binary() -> Path:
    """anvil from npm (a node no one here wrote), installed under .bench/ on first use."""
    return npm_package(ANVIL_PACKAGE) / "bin" / "anvil"


def run_node_script(
    script: str, *args: str, packages: tuple[str, ...] = (), timeout: float = 120
) -> str:
    """Runs an ES-module JavaScript `script` with Node.js, with the named client libraries
    (keys of NPM_CLIENTS) installed under .bench/ and importable; returns its stdout.

    The script gets `args` as process.argv.slice(2); a non-zero exit raises with its stderr."""
    for name in packages:
        npm_package(name, NPM_CLIENTS.get(name))
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", dir=ANVIL_DIR, delete=False) as f:
        f.write(script)
    try:
        done = subprocess.run(
            ["node", f.name, *args],
            cwd=ANVIL_DIR,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        os.unlink(f.name)
    if done.returncode != 0:
        # Node echoes the failing source line first; in a minified bundle it is one huge line.
        lines = [
            line if len(line) < 500 else line[:200] + " …" for line in done.stderr.splitlines()
        ]
        raise RuntimeError(f"node script failed ({done.returncode}):\n" + "\n".join(lines)[-4000:])
    return done.stdout


@contextlib.contextmanager
def serve_anvil(*args: str) -> Iterator[str]:
    """anvil on a free loopback port; yields its JSON-RPC URL. If another process took the port
    before anvil bound it, anvil exits and starts again on a fresh one."""
    for _ in range(3):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        cmd = [str(anvil_binary()), "--port", str(port), "--host", "127.0.0.1", "--silent", *args]
        # Its errors to a file, not a pipe: a pipe no one reads would stall a chatty anvil.
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
            try:
                if _wait_for_anvil(proc, url, err):
                    yield url
                    return
            finally:
                terminate(proc)
    raise RuntimeError("anvil found no free port")


def _wait_for_anvil(proc: subprocess.Popen[bytes], url: str, err: Any) -> bool:
    """True once anvil answers; False if it exited because its port was taken."""
    deadline = time.monotonic() + 30
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.post(url, json=body, timeout=1).status_code == 200:
                return True
        if proc.poll() is not None:
            err.seek(0)
            text = err.read().decode(errors="replace")
            if "in use" in text.lower():
                return False
            raise RuntimeError(f"anvil exited with {proc.returncode}: {text[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError("anvil did not start")
        time.sleep(0.05)


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
    from snowfield.chains.evm.journal import MemoryJournal

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
    from snowfield.chains.evm.journal import MemoryJournal
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
