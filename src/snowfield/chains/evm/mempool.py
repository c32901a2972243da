"""Pending transactions, per sender and nonce, in the order a block builder takes them."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from snowfield.chains.evm.model import Tx
from snowfield.errors import Conflict

PRICE_BUMP_PERCENT = 10


class Mempool:
    """Holds transactions until a block includes them; replacements need a 10% fee bump."""

    def __init__(self) -> None:
        self._by_sender: dict[bytes, dict[int, Tx]] = {}
        self.by_hash: dict[bytes, Tx] = {}

    def __len__(self) -> int:
        return len(self.by_hash)

    def add(self, tx: Tx) -> None:
        slots = self._by_sender.setdefault(tx.sender, {})
        old = slots.get(tx.nonce)
        if old is not None:
            if not _outbids(tx, old):
                raise Conflict("replacement transaction underpriced")
            del self.by_hash[old.hash]
        slots[tx.nonce] = tx
        self.by_hash[tx.hash] = tx

    def copy(self) -> Mempool:
        """An independent pool holding the same transactions (for snapshots)."""
        out = Mempool()
        out.restore(self)
        return out

    def restore(self, other: Mempool) -> None:
        """Makes this pool hold exactly `other`'s transactions."""
        self._by_sender = {sender: dict(slots) for sender, slots in other._by_sender.items()}
        self.by_hash = dict(other.by_hash)

    def remove(self, tx: Tx) -> None:
        if self.by_hash.pop(tx.hash, None) is None:
            return
        slots = self._by_sender[tx.sender]
        del slots[tx.nonce]
        if not slots:
            del self._by_sender[tx.sender]

    def has_sender(self, sender: bytes) -> bool:
        return sender in self._by_sender

    def drop_stale(self, sender: bytes, state_nonce: int) -> None:
        """Forgets a sender's transactions whose nonce the chain has already used."""
        for tx in [t for n, t in self._by_sender.get(sender, {}).items() if n < state_nonce]:
            self.remove(tx)

    def pending_count(self, sender: bytes, state_nonce: int) -> int:
        """How many of the sender's transactions run in sequence from the state nonce."""
        slots = self._by_sender.get(sender, {})
        nonce = state_nonce
        while nonce in slots:
            nonce += 1
        return nonce - state_nonce

    def executable(self, state_nonce: Callable[[bytes], int], base_fee: int) -> Iterator[Tx]:
        """Transactions that can run now: each sender's nonce run, best tip first across senders."""
        runs: dict[bytes, list[Tx]] = {}
        for sender, slots in self._by_sender.items():
            nonce = state_nonce(sender)
            run = []
            while nonce in slots:
                run.append(slots[nonce])
                nonce += 1
            if run:
                runs[sender] = run
        while runs:
            sender = max(runs, key=lambda s: runs[s][0].tip(base_fee))
            run = runs[sender]
            yield run.pop(0)
            if not run:
                del runs[sender]

    def split(self, state_nonce: Callable[[bytes], int]) -> tuple[list[Tx], list[Tx]]:
        """(pending, queued) as txpool_content shows them."""
        pending: list[Tx] = []
        queued: list[Tx] = []
        for sender, slots in self._by_sender.items():
            run_end = state_nonce(sender) + self.pending_count(sender, state_nonce(sender))
            for nonce in sorted(slots):
                (pending if nonce < run_end else queued).append(slots[nonce])
        return pending, queued


def _outbids(new: Tx, old: Tx) -> bool:
    bump = 100 + PRICE_BUMP_PERCENT
    return (
        new.max_fee * 100 >= old.max_fee * bump
        and new.max_priority_fee * 100 >= old.max_priority_fee * bump
    )
