"""Token balances of the (holder, token, id)s each block's transfers touched, as of that block.

Computed from the transfer rows, starting from the key's last stored balance (0 for a key never
seen: the index starts at genesis, and a token's first balance comes with a transfer), then
checked once per batch against the node: `balanceOf(holder)` of an ERC-20 and
`balanceOf(holder, id)` of an ERC-1155 at the batch's last block, in batched eth_calls. A key
whose computed end balance differs (a fee-on-transfer or rebasing token, a mint without an
event) is read from the node block by block instead, as indexer/balances.py does for native
balances; a token whose balanceOf fails keeps the computed values. An ERC-721 balance is the
transfer itself (the receiver holds the id, the sender no longer), asked of no node."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence

from snowfield.indexer.abi import as_uint, call_data
from snowfield.indexer.calls import Calls
from snowfield.store.database import Database
from snowfield.store.rows import ERC721, ERC1155, TOKEN_KINDS, BlockBundle, TokenBalanceRow
from snowfield.store.token_balances import TokenKey, balances_before

BALANCE_OF = "0x70a08231"  # ERC-20 balanceOf(address)
BALANCE_OF_ID = "0x00fdd58e"  # ERC-1155 balanceOf(address, uint256)
ZERO = "0x" + "00" * 20  # mints come from it and burns go to it; it holds nothing

# (block, balance after it) of one key, over the batch's blocks that touched it.
Walk = list[tuple[int, int]]


def changes(bundle: BlockBundle) -> dict[TokenKey, int | None]:
    """Per key the block touched: its net change, or for an ERC-721 id the balance after the
    block (None: a delta of 0 kept for a key touched by a zero-value transfer)."""
    out: dict[TokenKey, int | None] = {}
    for t in bundle.transfers:
        kind = TOKEN_KINDS.get(t.erc_type)
        if kind is None:
            continue
        src = (t.from_addr, kind, t.token, t.token_id)
        dst = (t.to_addr, kind, t.token, t.token_id)
        if kind == ERC721:  # in log order: the last transfer of the id decides
            out[src], out[dst] = 0, 1
            continue
        out[src] = (out.get(src) or 0) - t.value
        out[dst] = (out.get(dst) or 0) + t.value
    return {k: v for k, v in out.items() if k[0] != ZERO}


def _call(key: TokenKey, block: int) -> tuple[str, str, int]:
    holder, kind, token, token_id = key
    if kind == ERC1155:
        return token, call_data(BALANCE_OF_ID, int(holder, 16), token_id or 0), block
    return token, call_data(BALANCE_OF, int(holder, 16)), block


class TokenBalanceTracker:
    def __init__(self, db: Database, calls: Calls, chain_id: int) -> None:
        self.db = db
        self.calls = calls
        self.chain_id = chain_id
        self.refetched = 0  # keys read block by block because the computation missed
        # key -> (block, balance) of its last touch in a batch computed but perhaps not yet
        # written: the next batch starts from here, not from the store (indexer pipeline).
        self._recent: dict[TokenKey, tuple[int, int]] = {}
        # A key with no row before the batch starts at 0 when the index is read from genesis
        # in order; a parallel backfill's range starts mid-history: the node says where.
        self.unknown_from_node = False

    def settle(self, height: int) -> None:
        """The batches up to `height` are written: their balances are read back from there."""
        self._recent = {k: v for k, v in self._recent.items() if v[0] > height}

    def forget(self) -> None:
        """Drops the unwritten balances (a batch that was not written, an unwind)."""
        self._recent = {}

    async def rows(self, bundles: Sequence[BlockBundle]) -> list[list[TokenBalanceRow]]:
        """Per block of the batch, a row for each key its transfers touched."""
        per_block = [changes(b) for b in bundles]
        keys = sorted({k for c in per_block for k in c}, key=_order)
        if not keys:
            return [[] for _ in bundles]
        first, last = bundles[0].block.number, bundles[-1].block.number
        checked = [k for k in keys if k[1] != ERC721]
        start, at_end = await asyncio.gather(
            self._start(checked, first),
            self.calls.eth_calls([_call(k, last) for k in checked]),
        )
        walks = _walk(bundles, per_block, start)
        answers = {k: as_uint(r) for k, r in zip(checked, at_end, strict=True) if r is not None}
        actual = {k: v for k, v in answers.items() if v is not None}
        wrong = [k for k in checked if k in actual and walks[k][-1][1] != actual[k]]
        if wrong:
            walks.update(await self._fetch(wrong, walks))
            self.refetched += len(wrong)
        self._recent.update((k, walks[k][-1]) for k in keys)
        rows: dict[int, list[TokenBalanceRow]] = {b.block.number: [] for b in bundles}
        for key in keys:
            holder, kind, token, token_id = key
            for number, balance in walks[key]:
                rows[number].append(
                    TokenBalanceRow(self.chain_id, holder, kind, token, token_id, number, balance)
                )
        return [rows[b.block.number] for b in bundles]

    async def _start(self, keys: Sequence[TokenKey], first: int) -> dict[TokenKey, int]:
        """Each key's balance before the batch: its last computed or stored row, else 0."""
        recent = {k: v[1] for k in keys if (v := self._recent.get(k)) and v[0] < first}
        rest = [k for k in keys if k not in recent]
        stored = await asyncio.to_thread(balances_before, self.db, self.chain_id, rest, first)
        stored.update(recent)
        missing = [k for k in keys if k not in stored]
        if self.unknown_from_node and missing and first > 0:
            answers = await self.calls.eth_calls([_call(k, first - 1) for k in missing])
            for key, answer in zip(missing, answers, strict=True):
                if answer is not None and (value := as_uint(answer)) is not None:
                    stored[key] = value
        return stored

    async def _fetch(
        self, wrong: Sequence[TokenKey], walks: dict[TokenKey, Walk]
    ) -> dict[TokenKey, Walk]:
        wanted = [(k, number) for k in wrong for number, _ in walks[k]]
        results = await self.calls.eth_calls([_call(k, number) for k, number in wanted])
        fetched: dict[TokenKey, Walk] = defaultdict(list)
        computed = {(k, number): value for k in wrong for number, value in walks[k]}
        for (key, number), result in zip(wanted, results, strict=True):
            value = as_uint(result) if result is not None else None
            fetched[key].append((number, computed[(key, number)] if value is None else value))
        return fetched


def _order(key: TokenKey) -> tuple[str, int, str, int]:
    return key[0], key[1], key[2], -1 if key[3] is None else key[3]


def _walk(
    bundles: Sequence[BlockBundle],
    per_block: Sequence[dict[TokenKey, int | None]],
    start: dict[TokenKey, int],
) -> dict[TokenKey, Walk]:
    """key → [(block, balance after it)] over the blocks that touched it."""
    balance = dict(start)
    out: dict[TokenKey, Walk] = defaultdict(list)
    for bundle, change in zip(bundles, per_block, strict=True):
        for key in sorted(change, key=_order):
            delta = change[key] or 0
            balance[key] = delta if key[1] == ERC721 else balance.get(key, 0) + delta
            out[key].append((bundle.block.number, balance[key]))
    return out
