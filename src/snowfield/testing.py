"""Builders for tests and scripts: a real devnet served on 127.0.0.1 in a background thread,
or as a separate process (for kill -9)."""

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

from snowfield.cli import build_node
from snowfield.config import DevnetSettings
from snowfield.node.app import create_node_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    settings = dataclasses.replace(DevnetSettings(port=free_port()), **overrides)
    node = build_node(settings)
    server = uvicorn.Server(
        uvicorn.Config(
            create_node_app(node),
            host="127.0.0.1",
            port=settings.port,
            log_level="warning",
            lifespan="on",
        )
    )
    thread = threading.Thread(target=server.run, name="devnet-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("devnet did not start")
        time.sleep(0.02)
    try:
        yield RunningNode(f"http://127.0.0.1:{settings.port}", node)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        if node.admin.temporary:
            shutil.rmtree(node.admin.directory, ignore_errors=True)


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
                raise RuntimeError(f"devnet exited with {self.proc.returncode}: {err}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/ext/health/liveness", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("devnet did not start in time")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill9()
