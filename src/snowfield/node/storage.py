"""Where a node's chains keep their data: files under the data dir, or memory."""

from __future__ import annotations

from pathlib import Path

from snowfield.chains.evm.journal import Journal, MemoryJournal
from snowfield.node.journal_file import FileJournal
from snowfield.node.registry import chain_dir


class NodeStorage:
    """Opens each chain's journal and index state by the chain's label (alias or id)."""

    def __init__(self, data_dir: Path | None, *, fsync: bool = False) -> None:
        self.data_dir = data_dir
        self.fsync = fsync

    def journal(self, label: str) -> Journal:
        if self.data_dir is None:
            return MemoryJournal()
        return FileJournal(chain_dir(self.data_dir, label) / "chain.journal", fsync=self.fsync)

    def shared_memory_journal(self) -> Journal:
        """The network's shared memory: `<data-dir>/atomic/shared-memory.journal`."""
        if self.data_dir is None:
            return MemoryJournal()
        return FileJournal(self.data_dir / "atomic" / "shared-memory.journal", fsync=self.fsync)

    def index_state_path(self, label: str, index: str) -> Path | None:
        """`<data-dir>/index/<label>-<index>.json` (the C-Chain's: index/C-block.json)."""
        if self.data_dir is None:
            return None
        return self.data_dir / "index" / f"{label}-{index}.json"

    @property
    def profiles(self) -> Path | None:
        return None if self.data_dir is None else self.data_dir / "profiles"
