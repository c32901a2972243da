"""How every command runs its service: logging as its settings say, the event loop, stop
signals, a migrated database, and our errors ending the command with their message."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar

import typer
import uvloop
from rich.console import Console

from snowfield import logs
from snowfield.errors import SnowfieldError

if TYPE_CHECKING:
    from snowfield.store.database import Database

# What the commands print for people (banners, URLs, progress, errors): stderr, so a command's
# stdout holds only its output (a key `keys create` prints).
console = Console(stderr=True)


class LoggedSettings(Protocol):
    @property
    def log_level(self) -> str: ...

    @property
    def log_format(self) -> str: ...


S = TypeVar("S", bound=LoggedSettings)


def run_service(settings: S, main: Callable[[S], Coroutine[Any, Any, None]]) -> None:
    """Logging as the settings say, then `main(settings)` on uvloop; our errors end the
    command with their message and status 1."""
    logs.configure(settings.log_level, settings.log_format)
    try:
        # uvloop: the event loop uvicorn itself would pick; measurably faster I/O.
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(main(settings))
    except SnowfieldError as exc:
        fail(exc.message)


def fail(message: str, status: int = 1) -> NoReturn:
    """Ends the command with `error: message` and the exit status."""
    console.print(f"[red]error:[/red] {message}")
    raise typer.Exit(status)


def on_signals(
    callback: Callable[[], object],
    signals: Iterable[signal.Signals] = (signal.SIGINT, signal.SIGTERM),
) -> None:
    """Calls `callback` in the running loop when one of the signals arrives."""
    loop = asyncio.get_running_loop()
    for signum in signals:
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, callback)


def stop_event() -> asyncio.Event:
    """An event Ctrl-C or SIGTERM sets: the service stops at its next safe point."""
    stop = asyncio.Event()
    on_signals(stop.set)
    return stop


async def migrated(url: str, read_url: str | None = None) -> Database:
    """The service's database, its schema brought up to date; with `read_url`, reads go to
    that replica of it."""
    from snowfield.store.database import Database
    from snowfield.store.replica import ReplicaReads

    db = Database(url) if read_url is None else ReplicaReads(url, read_url)
    await asyncio.to_thread(db.migrate)
    return db


def migrated_now(url: str) -> Database:
    """As `migrated`, for the one-shot commands (keys, contracts) outside an event loop."""
    from snowfield.store.database import Database

    db = Database(url)
    db.migrate()
    return db
