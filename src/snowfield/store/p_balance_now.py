"""What a P-Chain balance now reads (api/primary/balances.py), in one store call: the owners'
balance rows (p_holdings.py), their genesis allocations (p_genesis.py), the atomic memory the
X- and C-Chain exported to them (atomic_utxos.py), and the chain time their locks are judged at,
read only when one of them is locked.

Why one call: on PostgreSQL each store call is a worker-thread round trip, and the balance
made four; on SQLite one chain-time read serves the P-Chain's own lists and the atomic memory
(each read its own). One address holding something is one statement here (its balance rows,
with the genesis flag and the chain time as columns), and the atomic memory's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snowfield.store import atomic_utxos, p_genesis, p_holdings
from snowfield.store.database import Database
from snowfield.store.p_address_queries import Held
from snowfield.store.p_genesis import GenesisUtxo
from snowfield.store.primary_queries import chain_time
from snowfield.store.shared_memory import Chains, Shared


@dataclass(frozen=True, slots=True)
class BalanceNow:
    held: list[Held]  # the P-Chain's own unspent UTXOs (or balance rows)
    genesis: list[GenesisUtxo]  # the genesis allocations, spent or not
    shared: list[Shared]  # the atomic memory, not yet imported
    chain_time: int | None  # None when nothing read is locked (or before any block)


def read(db: Database, chains: Chains, addresses: Sequence[str]) -> BalanceNow:
    pchain = chains.pchain
    # One address that holds something: its rows carry the genesis flag and the chain time.
    flagged = p_holdings.held_with_flags(db, pchain, addresses)
    if flagged is None:
        held = p_holdings.held(db, pchain, addresses)
        genesis = p_genesis.owned(db, pchain, addresses)
    else:
        held = flagged.held
        genesis = p_genesis.owned(db, pchain, addresses) if flagged.owns_genesis else []
    shared = atomic_utxos.shared_at(db, chains, pchain, addresses, None)
    locked = (
        any(map(p_holdings.locked, held))
        or any(u.consuming_tx is None and (u.stakeable_locktime or u.locktime) for u in genesis)
        or any(s.locktime for s in shared)
    )
    if not locked:
        return BalanceNow(held, genesis, shared, None)
    now = chain_time(db, pchain) if flagged is None else flagged.chain_time
    return BalanceNow(held, genesis, shared, now)
