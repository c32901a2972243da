"""The server-level request timeout: a call still running at its deadline is answered with
-32002 `request timed out` (avalanchego's `--http-write-timeout`, as coreth's RPC handler answers
it), while it finishes in the background: like the real node, the server stops waiting, not the
work (the EVM's own `--rpc-evm-timeout` stops a call's execution)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from snowfield.errors import SnowfieldError

T = TypeVar("T")
TIMED_OUT_MESSAGE = "request timed out"

# Calls answered as timed out but still running: referenced until they end (the event loop
# keeps only weak references to tasks).
_finishing: set[asyncio.Future[object]] = set()


class RequestTimedOut(SnowfieldError):
    """Raised when a call runs past the server's request timeout (code -32002)."""


def _finished(task: asyncio.Future[object]) -> None:
    _finishing.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: its caller was answered already


async def within(work: Awaitable[T], timeout: float | None) -> T:
    """`work`'s result, or RequestTimedOut once `timeout` seconds pass (None: no limit)."""
    if timeout is None:
        return await work
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.wait_for(asyncio.shield(task), timeout)
    except TimeoutError:
        _finishing.add(task)  # type: ignore[arg-type]
        task.add_done_callback(_finished)  # type: ignore[arg-type]
        raise RequestTimedOut(TIMED_OUT_MESSAGE) from None


def remaining(deadline: float | None) -> float | None:
    """Seconds left before `deadline` (the event loop's clock); None without one."""
    if deadline is None:
        return None
    return max(0.0, deadline - asyncio.get_running_loop().time())
