"""Polling filters (eth_newFilter and friends): cursors over blocks and pending transactions."""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from snowfield.chains.evm.model import Block
from snowfield.errors import NotFound
from snowfield.node.vms.evm.logfilter import LogCriteria

FILTER_TIMEOUT = 300.0
MAX_PENDING_HASHES = 10_000


@dataclass(slots=True)
class Filter:
    kind: str  # "block" | "logs" | "pending"
    cursor: int
    criteria: LogCriteria | None = None
    pending: deque[bytes] = field(default_factory=lambda: deque(maxlen=MAX_PENDING_HASHES))
    touched: float = field(default_factory=time.monotonic)


class FilterRegistry:
    """Installed filters; each expires after five minutes without a poll, as in geth."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._filters: dict[str, Filter] = {}
        self._clock = clock

    def install(self, kind: str, cursor: int, criteria: LogCriteria | None = None) -> str:
        self._expire()
        ident = "0x" + secrets.token_hex(16)
        self._filters[ident] = Filter(kind, cursor, criteria, touched=self._clock())
        return ident

    def get(self, ident: str) -> Filter:
        self._expire()
        found = self._filters.get(ident)
        if found is None:
            raise NotFound("filter not found")
        found.touched = self._clock()
        return found

    def uninstall(self, ident: str) -> bool:
        return self._filters.pop(ident, None) is not None

    def on_pending(self, tx_hash: bytes) -> None:
        for f in self._filters.values():
            if f.kind == "pending":
                f.pending.append(tx_hash)

    def rewind(self, height: int) -> None:
        """The chain was cut back to `height`: the blocks that replace the cut ones are new."""
        for f in list(self._filters.values()):
            f.cursor = min(f.cursor, height)

    def _expire(self) -> None:
        now = self._clock()
        for ident in [i for i, f in self._filters.items() if now - f.touched > FILTER_TIMEOUT]:
            del self._filters[ident]

    def __len__(self) -> int:
        return len(self._filters)


def block_hashes(blocks: list[Block]) -> list[str]:
    return ["0x" + b.hash.hex() for b in blocks]
