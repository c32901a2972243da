"""Runs the services of `snowfield up` as child processes: starts them in order, waits until
each answers, stops them all (newest first) on Ctrl-C or when one of them dies."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx


@dataclass(frozen=True, slots=True)
class Child:
    name: str
    command: list[str]
    ready: str | None  # a URL that answers 200 once the child serves
    log: Path | None  # None: the child writes to this terminal


def supervise(children: Sequence[Child], urls: dict[str, str], console: Any) -> int:
    """Returns the exit status for the command: 0 after Ctrl-C, 1 when a child failed."""
    running: list[tuple[Child, subprocess.Popen[bytes], IO[bytes] | None]] = []
    stop = _stop_on_signals()
    try:
        for child in children:
            running.append(_start(child))
            if not _wait_ready(child, running[-1][1], stop):
                # Ctrl-C while starting is a stop, not a failure.
                return 0 if stop["now"] else _failed(child, console)
        console.print("[bold]snowfield is up[/bold]")
        for label, url in urls.items():
            console.print(f"  {label:<18} {url}", soft_wrap=True)
        console.print("Ctrl-C stops everything.")
        while not stop["now"]:
            for child, proc, _ in running:
                if proc.poll() is not None:
                    return _failed(child, console)
            time.sleep(0.2)
        return 0
    finally:
        for _, proc, log in reversed(running):
            terminate(proc)
            if log is not None:
                log.close()


def _start(child: Child) -> tuple[Child, subprocess.Popen[bytes], IO[bytes] | None]:
    log = None
    if child.log is not None:
        child.log.parent.mkdir(parents=True, exist_ok=True)
        log = open(child.log, "ab")  # noqa: SIM115 - closed by supervise
    proc = subprocess.Popen(child.command, stdout=log, stderr=log)
    return child, proc, log


def _wait_ready(child: Child, proc: subprocess.Popen[bytes], stop: dict[str, bool]) -> bool:
    if child.ready is None:
        time.sleep(0.5)
        return proc.poll() is None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not stop["now"]:
        if proc.poll() is not None:
            return False
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(child.ready, timeout=1).status_code == 200:
                return True
        time.sleep(0.2)
    return False


def _failed(child: Child, console: Any) -> int:
    where = f"; see {child.log}" if child.log else ""
    console.print(f"[red]error:[/red] {child.name} stopped or did not start{where}")
    return 1


def terminate(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if the process has not exited within 15 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _stop_on_signals() -> dict[str, bool]:
    state = {"now": False}

    def handler(signum: int, frame: object) -> None:
        state["now"] = True

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)
    return state
