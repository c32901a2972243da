"""`snowfield serve` as its own process, as an operator runs it, for the tests that need the
real command (its worker, its Redis limiter, a restart): started, waited for, stopped, and its
log checked for tracebacks."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from snowfield.testing import free_port


@contextlib.contextmanager
def serving(
    db_url: str, log: Path, *, port: int | None = None, extra: tuple[str, ...] = ()
) -> Iterator[str]:
    """`snowfield serve --db db_url` on `port` (a free one by default) with `extra` flags, its
    stderr appended to `log`; yields its base URL once it answers."""
    port = port or free_port()
    cmd = [sys.executable, "-m", "snowfield", "serve", "--db", db_url, "--port", str(port)]
    cmd += ["--metrics-api-port", str(free_port()), "--log-level", "warn", *extra]
    with open(log, "ab") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/v1/live-check", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "serve did not start"
                time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "Traceback" not in log.read_text()
