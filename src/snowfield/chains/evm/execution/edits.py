"""Writing accounts directly into a state, outside any transaction (the devnet's cheat codes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from snowfield.chains.evm.execution.accounts import FastAccountDB
from snowfield.chains.evm.execution.state import StateStore


@dataclass(frozen=True, slots=True)
class AccountEdit:
    """What to set on one account; None leaves a field as it is."""

    address: bytes
    balance: int | None = None
    nonce: int | None = None
    code: bytes | None = None
    storage: dict[int, int] = field(default_factory=dict)


def apply_edits(store: StateStore, root: bytes, edits: Iterable[AccountEdit]) -> bytes:
    """Applies `edits` on the state at `root`; returns the new root (the trie writes are
    recorded in `store` like a block's)."""
    accounts = FastAccountDB(store.atomic, root)
    for edit in edits:
        if edit.balance is not None:
            accounts.set_balance(edit.address, edit.balance)
        if edit.nonce is not None:
            accounts.set_nonce(edit.address, edit.nonce)
        if edit.code is not None:
            accounts.set_code(edit.address, edit.code)
        for slot, value in edit.storage.items():
            accounts.set_storage(edit.address, slot, value)
    accounts.persist()
    return bytes(accounts.state_root)
