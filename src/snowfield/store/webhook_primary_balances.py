"""P-Chain balances of addresses at the end of a block, read inside the writer's transaction:
what a `primary_network_address_activity` message reports (balance_change) and compares with a
webhook's threshold (balance_threshold).

The data API's balances (operation 20) are judged at a time; a webhook's are judged at a block
height, so that two blocks of the same second (common on a busy P-Chain) are told apart: a UTXO
counts from the block that emitted it until the block that consumed it, a stake output as
staked until its staker's RewardValidatorTx, and its locks against the block's timestamp, as
platform.getBalance judges them (`p_kind`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store import sql
from snowfield.store.database import Writer
from snowfield.store.p_address_queries import Held, p_kind
from snowfield.store.primary_documents import asset

# The P-Chain's kinds of CommonBalanceType (the atomic-memory kinds are shared memory's,
# not the P-Chain's UTXOs).
P_BALANCE_TYPES = (
    "unlockedUnstaked",
    "unlockedStaked",
    "lockedPlatform",
    "lockedStakeable",
    "lockedStaked",
    "pendingStaked",
)


@dataclass(frozen=True, slots=True)
class Owned:
    """One UTXO an address held at a height, with the kind it counted in."""

    address: str
    utxo_id: str
    asset_id: str
    amount: int
    kind: str


def held_at(
    w: Writer, pchain: str, addresses: Sequence[str], height: int, timestamp: int
) -> list[Owned]:
    """The UTXOs `addresses` held at the end of block `height` (time `timestamp`), one row per
    (address, UTXO): a UTXO of several owners is listed for each."""
    out: list[Owned] = []
    for part in sql.chunks(sorted(set(addresses))):
        rows = w.query(
            "SELECT a.address, u.utxo_id, u.asset_id, u.amount, u.staked, u.stakeable_locktime,"
            " u.locktime, u.utxo_start, CASE WHEN r.height <= ? THEN 1 ELSE 0 END"
            " FROM p_tx_addresses a CROSS JOIN p_utxos u"
            " LEFT JOIN p_stakers s ON u.staked = 1 AND s.pchain = u.pchain AND s.tx_id = u.tx_id"
            " LEFT JOIN p_txs r ON r.pchain = s.pchain AND r.tx_id = s.ended_tx"
            f" WHERE a.pchain = ? AND a.address IN {sql.in_list(part)}"
            " AND u.pchain = a.pchain AND u.tx_id = a.tx_id AND u.consumed_on = a.pchain"
            " AND (',' || u.addresses || ',') LIKE ('%,' || a.address || ',%')"
            " AND u.block_height <= ?"
            " AND (COALESCE(u.consuming_tx, '') = '' OR u.consuming_height > ?)",
            (height, pchain, *part, height, height),
        )
        out += [_owned(r, timestamp) for r in rows]
    return out


def _owned(r: Sequence[Any], timestamp: int) -> Owned:
    address, utxo_id, asset_id, amount, staked, stakeable, locktime, start, ended = r
    held = Held(str(asset_id), int(amount), bool(staked), stakeable, locktime, start, bool(ended))
    return Owned(str(address), str(utxo_id), held.asset_id, held.amount, p_kind(held, timestamp))


def balances(avax_asset: str, owned: Iterable[Owned]) -> dict[str, list[dict[str, Any]]]:
    """PChainBalance's P-Chain lists (AggregatedAssetAmount per asset) of these UTXOs, each
    counted once however many of the addresses own it."""
    sums: dict[str, dict[str, tuple[int, int]]] = {k: {} for k in P_BALANCE_TYPES}
    seen: set[str] = set()
    for o in owned:
        if o.utxo_id in seen:
            continue
        seen.add(o.utxo_id)
        amount, count = sums[o.kind].get(o.asset_id, (0, 0))
        sums[o.kind][o.asset_id] = (amount + o.amount, count + 1)
    return {
        kind: [
            {**asset(avax_asset, a, amount), "utxoCount": count}
            for a, (amount, count) in sorted(per_asset.items())
        ]
        for kind, per_asset in sums.items()
    }


def avax_of(owned: Iterable[Owned], address: str, kind: str, avax_asset: str) -> int:
    """nAVAX one address held in one kind of balance."""
    return sum(
        o.amount
        for o in owned
        if o.address == address and o.kind == kind and o.asset_id == avax_asset
    )
