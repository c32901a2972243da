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
    stderr appended to `log`; yields its base URL once it answers. A free port another process
    took before the child bound it (`free_port` cannot hold it) is drawn again, twice at most."""
    for attempt in range(3):
        chosen = port or free_port()
        cmd = [sys.executable, "-m", "snowfield", "serve", "--db", db_url, "--port", str(chosen)]
        cmd += ["--metrics-api-port", str(free_port()), "--log-level", "warn", *extra]
        start = log.stat().st_size if log.exists() else 0
        with open(log, "ab") as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        base = f"http://127.0.0.1:{chosen}"
        try:
            if _started(proc, base, log, start, retry=port is None and attempt < 2):
                yield base
                break
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    assert "Traceback" not in log.read_text()


def _started(proc: subprocess.Popen[bytes], base: str, log: Path, start: int, retry: bool) -> bool:
    """True once `base` answers; False if the child exited over a port in use and `retry`."""
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{base}/v1/live-check", timeout=2)
            return True
        except httpx.TransportError:
            if proc.poll() is not None:
                text = log.read_bytes()[start:].decode(errors="replace")
                if retry and "address already in use" in text:
                    with open(log, "r+b") as f:  # the failed start is not this run's log
                        f.truncate(start)
                    return False
                raise AssertionError(text[-3000:]) from None
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.05)
