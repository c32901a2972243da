"""Key-value stores under the EVM state: recording (blocks) and scratch (calls)."""

from __future__ import annotations

from collections.abc import MutableMapping

from eth.db.backends.base import BaseDB


class RecordingDB(BaseDB):
    """A dict-backed store that remembers what was written since the last `drain()`.

    Trie nodes and code are content-addressed, so the node never deletes: a write
    recorded here is exactly what a block adds to the state database.
    """

    def __init__(self, data: MutableMapping[bytes, bytes]) -> None:
        self.data = data
        self.pending: dict[bytes, bytes] = {}

    def __getitem__(self, key: bytes) -> bytes:
        return self.data[key]

    def __setitem__(self, key: bytes, value: bytes) -> None:
        if self.data.get(key) != value:
            self.data[key] = value
            self.pending[key] = value

    def _exists(self, key: bytes) -> bool:
        return key in self.data

    def __delitem__(self, key: bytes) -> None:
        # Invariant: state is append-only so every historical root stays readable.
        pass

    def drain(self) -> dict[bytes, bytes]:
        """Returns and forgets the writes made since the previous drain."""
        pending, self.pending = self.pending, {}
        return pending


class ScratchDB(BaseDB):
    """Reads through to a base store; keeps its own writes so the base never changes."""

    def __init__(self, base: MutableMapping[bytes, bytes]) -> None:
        self.base = base
        self.local: dict[bytes, bytes] = {}

    def __getitem__(self, key: bytes) -> bytes:
        if key in self.local:
            return self.local[key]
        return self.base[key]

    def __setitem__(self, key: bytes, value: bytes) -> None:
        self.local[key] = value

    def _exists(self, key: bytes) -> bool:
        return key in self.local or key in self.base

    def __delitem__(self, key: bytes) -> None:
        self.local.pop(key, None)
