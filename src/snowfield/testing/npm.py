"""Programs from npm for tests and benchmarks, installed under .bench/ on first use: anvil (a
node no one here wrote) and Node.js scripts with real client libraries."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from snowfield.supervisor import terminate
from snowfield.testing.ports import free_port

ANVIL_DIR = Path(__file__).resolve().parents[3] / ".bench"
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
    # The official data client (data, metrics and webhooks APIs); tests/clients/chainkit.py.
    "@avalanche-sdk/chainkit": "@avalanche-sdk/chainkit@0.3.13",
}
_npm_lock = threading.Lock()


def npm_package(name: str, spec: str | None = None) -> Path:
    """The folder of npm package `name` under .bench/node_modules, installed on first use."""
    folder = ANVIL_DIR / "node_modules" / name
    with _npm_lock:
        if (folder / "package.json").exists():
            return folder
        ANVIL_DIR.mkdir(exist_ok=True)
        # Other processes (pytest-xdist's workers, a benchmark) install into the same folder:
        # one npm at a time, and the package looked for again once it is this one's turn.
        with open(ANVIL_DIR / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (folder / "package.json").exists():
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
