"""An append-only list of accepted containers for the index API (see node/index.py).

Position 0 is a placeholder the index never serves (as a chain's genesis), so a container's
index is its position minus one.

Public API: `Container`, `ContainerList` (`add`, `get`, `position_of`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from snowfield.formats.ids import EMPTY_ID, ID


@dataclass(frozen=True, slots=True)
class Container:
    id: ID
    data: bytes
    accepted_ns: int


class ContainerList:
    """Containers in acceptance order, by position and id."""

    def __init__(self) -> None:
        self._entries: list[Container] = [Container(EMPTY_ID, b"", 0)]
        self._by_id: dict[ID, int] = {}
        self._lock = threading.Lock()

    def add(self, container: Container) -> None:
        with self._lock:
            self._by_id[container.id] = len(self._entries)
            self._entries.append(container)

    def get(self, container_id: ID) -> Container | None:
        position = self._by_id.get(container_id)
        return None if position is None else self._entries[position]

    def __len__(self) -> int:
        return len(self._entries) - 1

    # --- ContainerSource -------------------------------------------------------------------

    def last_height(self) -> int:
        return len(self._entries) - 1

    def id_of(self, height: int) -> bytes:
        return self._entries[height].id.raw

    def container(self, height: int) -> bytes:
        return self._entries[height].data

    def accepted_ns(self, height: int) -> int:
        return self._entries[height].accepted_ns

    def container_height(self, container_id: bytes) -> int | None:
        return self._by_id.get(ID(container_id)) if len(container_id) == 32 else None
