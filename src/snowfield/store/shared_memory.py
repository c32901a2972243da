"""Shared memory between the P-, X- and C-Chain, from the three indexes: the UTXOs another
chain exported to a chain for some addresses that no import on that chain took yet (a chain's
"atomic memory"). Exports: p_utxos, x_utxos, c_atomic_utxos by `consumed_on`; imports: the
X-Chain's x_imports, the C-Chain's c_atomic_imports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snowfield.store.database import Database


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


# Per source: (its chain id's field, the table of its exports, its key column).
_EXPORTS = (
    ("pchain", "p_utxos", "pchain"),
    ("xchain", "x_utxos", "xchain"),
    ("cchain", "c_atomic_utxos", "cchain"),
)


def _imported(chain: str, chains: Chains) -> str:
    """A condition on `u.utxo_id`: some import on `chain` took it."""
    if chain == chains.xchain:
        return "EXISTS (SELECT 1 FROM x_imports i WHERE i.xchain = ? AND i.utxo_id = u.utxo_id)"
    if chain == chains.cchain:
        return (
            "EXISTS (SELECT 1 FROM c_atomic_imports i WHERE i.cchain = ? AND i.utxo_id = u.utxo_id)"
        )
    # The P-Chain's imports consume the UTXO in p_utxos' own rows (primidx's index).
    return (
        "EXISTS (SELECT 1 FROM p_utxos i WHERE i.pchain = ? AND i.utxo_id = u.utxo_id"
        " AND i.consuming_tx IS NOT NULL)"
    )


def shared_for(db: Database, chain: str, chains: Chains, addresses: Sequence[str]) -> list[Shared]:
    """What the other chains exported to `chain` for these addresses and `chain` has not
    imported yet."""
    out: dict[str, Shared] = {}
    for field, table, key in _EXPORTS:
        source = getattr(chains, field)
        if source is None or source == chain:
            continue
        for address in addresses:
            sql = (
                "SELECT u.utxo_id, u.asset_id, u.amount, COALESCE(u.locktime, 0)"
                f" FROM {table} u WHERE u.{key} = ? AND u.consumed_on = ?"
                " AND (',' || u.addresses || ',') LIKE ?"
                f" AND NOT {_imported(chain, chains)}"
            )
            for utxo_id, asset, amount, locktime in db.query(
                sql, (source, chain, f"%,{address},%", chain)
            ):
                out[str(utxo_id)] = Shared(
                    str(utxo_id), str(asset), int(amount), int(locktime), source
                )
    return list(out.values())
