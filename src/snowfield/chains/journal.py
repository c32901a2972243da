"""Where a chain (and the shared memory) records what it accepted so it survives a restart."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol


class Journal(Protocol):
    """An append-only sequence of records; an appended record survives a process kill."""

    def append(self, record: bytes) -> None: ...

    def records(self) -> Iterator[bytes]: ...


class MemoryJournal:
    """Keeps records in memory: a devnet without a data directory."""

    def __init__(self) -> None:
        self._records: list[bytes] = []

    def append(self, record: bytes) -> None:
        self._records.append(record)

    def records(self) -> Iterator[bytes]:
        return iter(list(self._records))
