"""evm_snapshot / evm_revert: numbered restore points of a chain, with hardhat's rules."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.mempool import Mempool
from snowfield.chains.evm.production import BlockParams


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything a revert puts back: the chain up to a height, its head state, the pool,
    the clock's offsets and the next block's parameters."""

    height: int
    root: bytes
    pool: Mempool
    time_offset: int
    next_timestamp: int | None
    params: BlockParams


class Snapshots:
    """Ids count up from 1; reverting to one consumes it and every later one (as hardhat).

    Snapshots live in memory only: a restart forgets them (the reverts they made are
    journaled by the chain)."""

    def __init__(self, chain: EvmChain) -> None:
        self.chain = chain
        self._taken: dict[int, Snapshot] = {}
        self._next_id = 1

    def take(self) -> int:
        """Records the chain as it is now; call on the chain's writer."""
        chain = self.chain
        with chain.quiesced():
            head = chain.head
            self._taken[self._next_id] = Snapshot(
                head.number,
                chain.root_of(head),
                chain.mempool.copy(),
                chain.time_offset,
                chain.next_timestamp,
                chain.params,
            )
        self._next_id += 1
        return self._next_id - 1

    def revert(self, ident: int) -> bool:
        """Restores snapshot `ident`; False when there is no such snapshot (any more)."""
        snapshot = self._taken.get(ident)
        if snapshot is None:
            return False
        for later in [i for i in self._taken if i >= ident]:
            del self._taken[later]
        chain = self.chain
        with chain.quiesced():
            chain.rewind(snapshot.height, snapshot.root)
            chain.mempool.restore(snapshot.pool)
            chain.time_offset = snapshot.time_offset
            chain.next_timestamp = snapshot.next_timestamp
            chain.params = snapshot.params
        return True

    def clear(self) -> None:
        self._taken.clear()
