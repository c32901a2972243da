"""The network clock: one time for every chain of a network, moved by the time controls."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from snowfield.errors import InvalidParams

# The latest second the network can represent: every chain formats its time as RFC 3339 (four
# digit years) and the ProposerVM wrapper holds it as an int64; a control asking for later is
# refused rather than wedging the chains that act on time.
MAX_TIME = 253_402_300_799  # 9999-12-31T23:59:59Z


def check_time(timestamp: float) -> None:
    """Raises InvalidParams for a network time past MAX_TIME."""
    if timestamp > MAX_TIME:
        raise InvalidParams(
            f"timestamp {int(timestamp)} is after {MAX_TIME} (9999-12-31T23:59:59Z), the latest "
            "time the network can represent"
        )


class NetworkClock:
    """Wall time plus an offset (whole seconds) that evm_increaseTime and friends move.

    The node owns one and hands it to each chain, so moving time moves it for all of them;
    chains that act on time (the P-Chain's staker ends) `subscribe` to hear of each move."""

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self._wall = wall
        self._lock = threading.Lock()
        self._offset = 0
        self._listeners: list[Callable[[], None]] = []

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Calls `listener()` after every move, on the thread that moved the clock."""
        self._listeners.append(listener)

    def _moved(self) -> None:
        for listener in self._listeners:
            listener()

    @property
    def offset(self) -> int:
        return self._offset

    @offset.setter
    def offset(self, seconds: int) -> None:
        check_time(self._wall() + seconds)
        with self._lock:
            self._offset = seconds
        self._moved()

    def __call__(self) -> float:
        return self._wall() + self.offset

    def increase(self, seconds: int) -> int:
        """Moves time forward by `seconds`; returns the total offset, as evm_increaseTime does."""
        with self._lock:
            check_time(self._wall() + self._offset + seconds)
            self._offset += seconds
            total = self._offset
        self._moved()
        return total

    def advance_to(self, timestamp: int) -> None:
        """Moves time forward so that now is at least `timestamp` (never back)."""
        check_time(timestamp)
        with self._lock:
            behind = timestamp - (self._wall() + self._offset)
            if behind > 0:
                self._offset += math.ceil(behind)
        if behind > 0:
            self._moved()
