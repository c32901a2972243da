"""Balances of an address, now or at a past block, from the index alone: native (balances) and
ERC-20, ERC-721 and ERC-1155 (token_balances, token_balance_history).

A balance at block N walks the same rows as the current one, the holder's keys in listing order,
and reads the history only for a key changed after N (one descent of the history's key each):
at most about twice the current read. A key whose first row is after N, or whose balance at N
is zero, is not listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.rows import ERC20, ERC721, ERC1155
from snowfield.store.sql import in_list, keyset


@dataclass(frozen=True, slots=True)
class TokenBalance:
    """A holder's non-zero balance of one token: an ERC-20, or one id of an ERC-721 (balance
    1) or an ERC-1155 contract."""

    chain_id: int
    holder: str
    kind: int  # rows.ERC20 | rows.ERC721 | rows.ERC1155
    token: str
    token_id: int | None  # None for ERC-20
    balance: int

    @property
    def key(self) -> Key:
        """Its listing position: (kind, token, token id as stored text)."""
        return self.kind, self.token, "" if self.token_id is None else str(self.token_id)


def native_balance_at(db: Database, chain_id: int, address: str, block: int | None) -> int | None:
    """`address`'s native balance after block `block` (None: the latest indexed), or None
    when the index saw no balance of it by then (the API answers 0)."""
    at, params = ("", []) if block is None else (" AND block_number <= ?", [block])
    row = db.query_one(
        f"SELECT balance FROM balances WHERE chain_id = ? AND address = ?{at}"
        " ORDER BY block_number DESC LIMIT 1",
        [chain_id, address, *params],
    )
    return None if row is None else int(row[0])


def erc20_balances(
    db: Database,
    chain_id: int,
    holder: str,
    *,
    block: int | None,
    contracts: Sequence[str] | None,
    after: Key | None,
    limit: int,
    named_only: bool = False,
) -> Page[TokenBalance]:
    """ERC-20 balances, by token address; `contracts` keeps those tokens only; `named_only`
    keeps those whose contract answered a non-empty name() and symbol() (the API's spam rule)."""
    return _balances(
        db, chain_id, holder, (ERC20, ERC20), block, contracts, after, limit, named_only
    )


def erc721_balances(
    db: Database,
    chain_id: int,
    holder: str,
    *,
    block: int | None,
    contract: str | None,
    after: Key | None,
    limit: int,
) -> Page[TokenBalance]:
    """The ERC-721 ids held, by (contract, id)."""
    only = None if contract is None else [contract]
    return _balances(db, chain_id, holder, (ERC721, ERC721), block, only, after, limit)


def erc1155_balances(
    db: Database,
    chain_id: int,
    holder: str,
    *,
    block: int | None,
    contract: str | None,
    after: Key | None,
    limit: int,
) -> Page[TokenBalance]:
    """ERC-1155 balances, by (contract, id)."""
    only = None if contract is None else [contract]
    return _balances(db, chain_id, holder, (ERC1155, ERC1155), block, only, after, limit)


def collectible_balances(
    db: Database,
    chain_id: int,
    holder: str,
    *,
    block: int | None,
    contract: str | None,
    after: Key | None,
    limit: int,
) -> Page[TokenBalance]:
    """ERC-721 then ERC-1155 balances (listCollectibles), each by (contract, id)."""
    only = None if contract is None else [contract]
    return _balances(db, chain_id, holder, (ERC721, ERC1155), block, only, after, limit)


def _balances(
    db: Database,
    chain_id: int,
    holder: str,
    kinds: tuple[int, int],
    block: int | None,
    contracts: Sequence[str] | None,
    after: Key | None,
    limit: int,
    named_only: bool = False,
) -> Page[TokenBalance]:
    where, params = " AND c.kind BETWEEN ? AND ?", list[Any](kinds)
    if named_only:  # NULL <> '' is not true: a missing name or symbol fails too
        where += (
            " AND EXISTS (SELECT 1 FROM tokens t WHERE t.chain_id = c.chain_id"
            " AND t.address = c.token AND t.name <> '' AND t.symbol <> '')"
        )
    if contracts is not None:
        if not contracts:
            return Page([], None)
        where, params = where + f" AND c.token IN {in_list(contracts)}", [*params, *contracts]
    ks, ks_p = keyset("c.kind, c.token, c.token_id", False, after)
    if block is None:
        value, value_p = "c.balance", []
    else:
        # The current row holds for a key unchanged since `block`; others ask the history.
        value = (
            "CASE WHEN c.block_number <= ? THEN c.balance ELSE (SELECT h.balance"
            " FROM token_balance_history h WHERE h.chain_id = c.chain_id AND h.holder = c.holder"
            " AND h.kind = c.kind AND h.token = c.token AND h.token_id = c.token_id"
            " AND h.block_number <= ? ORDER BY h.block_number DESC LIMIT 1) END"
        )
        value_p = [block, block]
    rows = db.query(
        "SELECT kind, token, token_id, balance FROM ("
        f"SELECT c.kind, c.token, c.token_id, {value} AS balance FROM token_balances c"
        f" WHERE c.chain_id = ? AND c.holder = ?{where}{ks}) AS held"
        # `<> '0'` also drops NULL (no row by `block`); each mention of `balance` evaluates
        # the history subquery again (SQLite flattens this), so the filter names it once.
        " WHERE balance <> '0' ORDER BY kind, token, token_id LIMIT ?",
        [*value_p, chain_id, holder, *params, *ks_p, limit + 1],
    )
    return page_of([_balance(chain_id, holder, r) for r in rows], limit, lambda b: b.key)


def _balance(chain_id: int, holder: str, r: tuple[Any, ...]) -> TokenBalance:
    token_id = None if r[2] == "" else int(r[2])
    return TokenBalance(chain_id, holder, int(r[0]), r[1], token_id, int(r[3]))
