"""Native balances of the addresses each block touched, as of that block.

Computed locally from the block's value transfers and fees, starting from the address's last
stored balance, then checked against the node once per batch (its balance at the batch's last
block). An address whose computed end balance differs — an effect the rows do not show, such as
an atomic import or a fee rule of another chain — is read from the node block by block instead.
This keeps the node calls per batch near the number of distinct addresses, not of touches.

An address seen for the first time with the balance it had at genesis gets an opening row at
block 0, so that a balance at a past block is known before its first transaction too."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Sequence

from snowfield.indexer.calls import Calls
from snowfield.store.balances import latest_balances
from snowfield.store.database import Database
from snowfield.store.rows import BalanceRow, BlockBundle

log = logging.getLogger("snowfield.indexer")
# Frames that move no value even when callTracer shows one (DELEGATECALL repeats the caller's
# value; CALLCODE pays the caller itself).
NO_TRANSFER = {"DELEGATECALL", "STATICCALL", "CALLCODE"}
# Who receives a transaction's fee: Ethereum burns the base fee and pays the tip to the block's
# coinbase; Avalanche's C-Chain pays the whole fee to its coinbase (the burn address).
MINER_RULES = ("tip", "full")


def touched(bundle: BlockBundle) -> set[str]:
    """Addresses whose native balance the block may have changed."""
    out: set[str] = {bundle.block.miner} if bundle.txs else set()
    for tx in bundle.txs:
        out.add(tx.from_addr)
        target = tx.to_addr or tx.created
        if target is not None:
            out.add(target)
    for frame in bundle.internal_txs:
        if frame.value and frame.call_type not in NO_TRANSFER:
            out.add(frame.from_addr)
            out.add(frame.to_addr)
    return out


def deltas(bundle: BlockBundle, miner_rule: str) -> dict[str, int]:
    """Net native balance change of each address in one block."""
    change: dict[str, int] = defaultdict(int)
    base_fee = bundle.block.base_fee or 0
    miner = bundle.block.miner
    for tx in bundle.txs:
        fee = tx.gas_used * tx.gas_price
        change[tx.from_addr] -= fee
        tip = fee if miner_rule == "full" else tx.gas_used * max(0, tx.gas_price - base_fee)
        change[miner] += tip
        target = tx.to_addr or tx.created
        if tx.status == 1 and tx.value and target is not None:
            change[tx.from_addr] -= tx.value
            change[target] += tx.value
    for frame in bundle.internal_txs:
        if frame.reverted or not frame.value or frame.call_type in NO_TRANSFER:
            continue
        change[frame.from_addr] -= frame.value
        change[frame.to_addr] += frame.value
    return change


class BalanceTracker:
    def __init__(self, db: Database, calls: Calls, chain_id: int) -> None:
        self.db = db
        self.calls = calls
        self.chain_id = chain_id
        self.miner_rule = MINER_RULES[0]
        self.refetched = 0  # addresses read block by block because the computation missed
        # address -> (block, balance) of its last touch in a batch computed but perhaps not
        # yet written: the next batch starts from here, not from the store (indexer pipeline).
        self._recent: dict[str, tuple[int, int]] = {}

    def settle(self, height: int) -> None:
        """The batches up to `height` are written: their balances are read back from there."""
        self._recent = {a: v for a, v in self._recent.items() if v[0] > height}

    def forget(self) -> None:
        """Drops the unwritten balances (a batch that was not written, an unwind)."""
        self._recent = {}

    async def rows(self, bundles: Sequence[BlockBundle]) -> list[list[BalanceRow]]:
        """Per block of the batch, a row for each address it touched."""
        touches = [sorted(touched(b)) for b in bundles]
        addresses = sorted({a for per_block in touches for a in per_block})
        if not addresses:
            return [[] for _ in bundles]
        first, last = bundles[0].block.number, bundles[-1].block.number
        (start, opening), at_end = await asyncio.gather(
            self._start(addresses, first), self.calls.balances([(a, last) for a in addresses])
        )
        actual = dict(zip(addresses, at_end, strict=True))
        values = _walk(bundles, touches, start, self.miner_rule)
        wrong = [a for a in addresses if values[a][-1][1] != actual[a]]
        if wrong:
            # Perhaps the chain pays fees the other way; the other rule is tried only then.
            other_rule = MINER_RULES[1 - MINER_RULES.index(self.miner_rule)]
            other = _walk(bundles, touches, start, other_rule)
            if all(other[a][-1][1] == actual[a] for a in addresses):
                self.miner_rule = other_rule
                log.info("chain %s pays fees by the %r rule", self.chain_id, other_rule)
                values, wrong = other, []
        if wrong:
            values = dict(values)
            values.update(await self._fetch(wrong, values))
            self.refetched += len(wrong)
        rows: dict[int, list[BalanceRow]] = {b.block.number: [] for b in bundles}
        self._recent.update((a, values[a][-1]) for a in addresses)
        for address in addresses:
            for number, balance in values[address]:
                rows[number].append(BalanceRow(self.chain_id, address, number, balance))
        per_block = [sorted(rows[b.block.number], key=lambda r: r.address) for b in bundles]
        per_block[0] = opening + per_block[0]  # rows of earlier blocks ride with the first
        return per_block

    async def _start(
        self, addresses: Sequence[str], first: int
    ) -> tuple[dict[str, int], list[BalanceRow]]:
        """Each address's balance before the batch: its last computed or stored row, else the
        node's; and the opening rows of the addresses the index sees for the first time."""
        recent = {a: v[1] for a in addresses if (v := self._recent.get(a)) and v[0] < first}
        rest = [a for a in addresses if a not in recent]
        stored = await asyncio.to_thread(latest_balances, self.db, self.chain_id, rest, first)
        stored.update(recent)
        missing = [a for a in addresses if a not in stored]
        if not missing:
            return stored, []
        # Before block 0 there is nothing; genesis allocations are block 0's state.
        before = max(first - 1, 0)
        wanted = [(a, n) for a in missing for n in sorted({before, 0})]
        at = dict(zip(wanted, await self.calls.balances(wanted), strict=True))
        stored.update((a, at[(a, before)]) for a in missing)
        # An address funded at genesis and untouched since has had that balance from block 0
        # on: its opening row says so. One funded later by what no row shows (an atomic
        # import) gets none: when is not known, and the balance before its first row is not.
        return stored, [
            BalanceRow(self.chain_id, a, 0, balance)
            for a in missing
            if (balance := at[(a, before)]) != 0 and at[(a, 0)] == balance
        ]

    async def _fetch(
        self, wrong: Sequence[str], values: dict[str, list[tuple[int, int]]]
    ) -> dict[str, list[tuple[int, int]]]:
        wanted = [(a, number) for a in wrong for number, _ in values[a]]
        fetched = iter(await self.calls.balances(wanted))
        return {a: [(number, next(fetched)) for number, _ in values[a]] for a in wrong}


def _walk(
    bundles: Sequence[BlockBundle],
    touches: Sequence[Sequence[str]],
    start: dict[str, int],
    miner_rule: str,
) -> dict[str, list[tuple[int, int]]]:
    """address → [(block, balance after it)] over the blocks that touched it."""
    balance = dict(start)
    out: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for bundle, per_block in zip(bundles, touches, strict=True):
        change = deltas(bundle, miner_rule)
        for address in per_block:
            balance[address] = balance.get(address, 0) + change.get(address, 0)
            out[address].append((bundle.block.number, balance[address]))
    return out
