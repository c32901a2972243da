"""The network clock: one time for every chain of a network, moved by the time controls."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class NetworkClock:
    """Wall time plus an offset (whole seconds) that evm_increaseTime and friends move.

    The node owns one and hands it to each chain, so moving time moves it for all of them."""

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self._wall = wall
        self._lock = threading.Lock()
        self.offset = 0

    def __call__(self) -> float:
        return self._wall() + self.offset

    def increase(self, seconds: int) -> int:
        """Moves time forward by `seconds`; returns the total offset, as evm_increaseTime does."""
        with self._lock:
            self.offset += seconds
            return self.offset

    def advance_to(self, timestamp: int) -> None:
        """Moves time forward so that now is at least `timestamp` (never back)."""
        with self._lock:
            behind = timestamp - (self._wall() + self.offset)
            if behind > 0:
                self.offset += math.ceil(behind)
