"""One WebSocket client of the node: the queue of what is sent to it, and what a service that
pushes to clients lets go of when one leaves."""

from __future__ import annotations

import asyncio
from typing import Protocol

MAX_QUEUED = 10_000


class Connection:
    """One WebSocket client: its outgoing queue and its subscriptions."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=MAX_QUEUED)
        self.subscriptions: set[str] = set()
        self.overflowed = False
        self.closed = False

    def close(self) -> None:
        """Forgets what was queued for a client that is gone; later pushes are dropped."""
        self.closed = True
        while not self.queue.empty():
            self.queue.get_nowait()

    def push(self, message: bytes) -> None:
        if self.closed:
            return  # a notification racing the disconnect: nobody will send it
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            # A client that does not read loses its connection rather than our memory.
            self.overflowed = True


class Subscribers(Protocol):
    """A service pushing to WebSocket clients (an EVM chain's subscription hub)."""

    def drop_connection(self, conn: Connection) -> None:
        """Forgets everything `conn` subscribed to: its client is gone."""
