"""Shared memory between the P-, X- and C-Chain: the three chains' ids, and one UTXO of a
chain's atomic memory (what another chain exported to it that no import on it took yet; read
by store/atomic_utxos.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Shared:
    utxo_id: str
    asset_id: str
    amount: int
    locktime: int
    source_chain: str


@dataclass(frozen=True, slots=True)
class Chains:
    pchain: str
    xchain: str | None
    cchain: str | None
