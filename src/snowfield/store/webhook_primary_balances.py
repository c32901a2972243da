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
from dataclasses import dataclass, replace
from typing import Any

from snowfield.store import sql
from snowfield.store.database import Writer
from snowfield.store.p_address_queries import Held, p_kind
from snowfield.store.primary_documents import asset
from snowfield.store.primary_rows import BlockRows, UtxoRow

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


@dataclass(slots=True)
class _Utxo:
    tx_id: str
    owners: frozenset[str]  # the followed addresses among its owners
    held: Held


class Ledger:
    """The UTXOs followed addresses hold, from the end of one block on: read once (at the
    height before a batch), then moved block by block by the batch's own rows, so that a
    batch costs one read however many of its blocks touch the addresses (a read per block
    would be quadratic in an active address's history)."""

    def __init__(self, w: Writer, pchain: str, addresses: Iterable[str], height: int) -> None:
        self.pchain = pchain
        self.followed = frozenset(addresses)
        self.utxos: dict[str, _Utxo] = {}
        for part in sql.chunks(sorted(self.followed)):
            for row in w.query(_held_sql(part), (height, pchain, *part, height, height)):
                self._load(row)

    def _load(self, r: Sequence[Any]) -> None:
        address, utxo_id, tx_id, asset_id, amount, staked, stakeable, locktime, start, ended = r
        held = Held(
            str(asset_id), int(amount), bool(staked), stakeable, locktime, start, bool(ended)
        )
        known = self.utxos.get(str(utxo_id))
        owners = frozenset({str(address)}) | (known.owners if known else frozenset())
        self.utxos[str(utxo_id)] = _Utxo(str(tx_id), owners, held)

    def apply(self, block: BlockRows, rewards: Iterable[UtxoRow]) -> None:
        """The block's changes: what it emits (and the reward UTXOs its commit pays) to the
        addresses, what it consumes, and the stakers it ends (their stake unstaked)."""
        for u in (*block.emitted, *rewards):
            owners = self.followed.intersection(u.addresses)
            if owners and u.consumed_on == self.pchain:  # kept on the P-Chain, not exported
                held = Held(
                    u.asset_id, u.amount, u.staked, u.stakeable_locktime, u.locktime, u.start, False
                )
                self.utxos[u.utxo_id] = _Utxo(u.tx_id, frozenset(owners), held)
        for _, spend in block.spends:
            self.utxos.pop(spend.utxo_id, None)
        ended = {staking for staking, _ in block.ended}
        for utxo_id, kept in list(self.utxos.items()):
            if kept.held.staked and kept.tx_id in ended:
                held = replace(kept.held, staker_ended=True)
                self.utxos[utxo_id] = _Utxo(kept.tx_id, kept.owners, held)

    def owned(self, timestamp: int) -> list[Owned]:
        """What the addresses hold now, each UTXO's kind judged at `timestamp`."""
        out = []
        for utxo_id, u in self.utxos.items():
            kind = p_kind(u.held, timestamp)
            out += [Owned(a, utxo_id, u.held.asset_id, u.held.amount, kind) for a in u.owners]
        return out


# The UTXOs addresses held at the end of a height, one row per (address, UTXO).
_HELD_PREFIX = (
    "SELECT a.address, u.utxo_id, u.tx_id, u.asset_id, u.amount, u.staked,"
    " u.stakeable_locktime, u.locktime, u.utxo_start, CASE WHEN r.height <= ? THEN 1 ELSE 0 END"
    " FROM p_tx_addresses a CROSS JOIN p_utxos u"
    " LEFT JOIN p_stakers s ON u.staked = 1 AND s.pchain = u.pchain AND s.tx_id = u.tx_id"
    " LEFT JOIN p_txs r ON r.pchain = s.pchain AND r.tx_id = s.ended_tx"
    " WHERE a.pchain = ? AND a.address IN "
)


def _held_sql(part: Sequence[str]) -> str:
    return (
        _HELD_PREFIX + sql.in_list(part) + " AND u.pchain = a.pchain AND u.tx_id = a.tx_id"
        " AND u.consumed_on = a.pchain"
        " AND (',' || u.addresses || ',') LIKE ('%,' || a.address || ',%')"
        " AND u.block_height <= ?"
        " AND (COALESCE(u.consuming_tx, '') = '' OR u.consuming_height > ?)"
    )


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
