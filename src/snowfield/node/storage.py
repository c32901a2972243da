"""Where a node's chains keep their data: files under the data dir, or memory."""

from __future__ import annotations

import json
import os
from pathlib import Path

from snowfield.chains.journal import Journal, MemoryJournal
from snowfield.errors import InvalidParams
from snowfield.node.journal_file import FileJournal


class NodeStorage:
    """Opens each chain's journal and index state by the chain's label (alias or id)."""

    def __init__(self, data_dir: Path | None, *, fsync: bool = False) -> None:
        self.data_dir = data_dir
        self.fsync = fsync

    def claim(self, identity: dict[str, object]) -> None:
        """Binds the data dir to one network (`<data-dir>/network.json`): a dir made with
        another network id, mnemonic or C-Chain id would replay journals that cannot verify
        under these settings, so it is refused before anything is read."""
        if self.data_dir is None:
            return
        path = self.data_dir / "network.json"
        if path.exists():
            try:
                known = json.loads(path.read_text())
            except (OSError, ValueError) as exc:
                raise InvalidParams(f"{path} is unreadable ({exc}): remove it or the dir") from None
            differs = sorted(k for k in identity if known.get(k) != identity[k])
            if differs:
                raise InvalidParams(
                    f"data dir {self.data_dir} was made for another network "
                    f"({', '.join(f'{k} {known.get(k)}' for k in differs)}); start with the "
                    "same settings or another --data-dir"
                )
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(identity, indent=2) + "\n")
        os.replace(tmp, path)

    def chain_dir(self, label: str) -> Path | None:
        """Where a chain keeps its data: `<data-dir>/<alias or blockchain id>` (so existing
        `<data-dir>/C/` folders stay the C-Chain's); None in memory."""
        return None if self.data_dir is None else self.data_dir / label

    @property
    def fresh(self) -> bool:
        """Whether no chain has started here yet (always, in memory)."""
        return self.data_dir is None or not (self.data_dir / "P" / "genesis-time").exists()

    def genesis_time(self, label: str, now: int) -> int:
        """The chain's genesis start time: `now` (the network clock) on first start, then what
        `<chain-dir>/genesis-time` kept (the journaled blocks replay only on the same genesis)."""
        directory = self.chain_dir(label)
        path = directory / "genesis-time" if directory else None
        if path is not None and path.exists():
            return int(path.read_text())
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(str(now))
        return now

    def journal(self, label: str) -> Journal:
        if self.data_dir is None:
            return MemoryJournal()
        return FileJournal(self.data_dir / label / "chain.journal", fsync=self.fsync)

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
