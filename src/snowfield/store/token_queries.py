"""Read queries of contracts, tokens, NFTs and native balances (operations 4, 8, 10, the
NFT collection routes).

Listings are keyset-paged like every other (fetch `limit + 1`, never OFFSET); lookups of many
tokens or NFTs go out in chunks that stay under the databases' parameter limits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.rows import ContractRow, NftRow, TokenRow
from snowfield.store.sql import chunks, in_list, keyset, order

_CONTRACT_COLS = "chain_id, address, block_number, tx_index, tx_hash, deployer, factory, creation"
_TOKEN_COLS = "chain_id, address, erc_type, name, symbol, decimals, first_block"
_NFT_COLS = (
    "chain_id, token, token_id, erc_type, token_uri, index_status, metadata, metadata_updated, "
    "first_block"
)


def _contract(r: tuple[Any, ...]) -> ContractRow:
    return ContractRow(*r)


def _token(r: tuple[Any, ...]) -> TokenRow:
    return TokenRow(*r)


def _nft(r: tuple[Any, ...]) -> NftRow:
    metadata = json.loads(r[6]) if r[6] else {}
    return NftRow(
        r[0],
        r[1],
        int(r[2]),
        r[3],
        r[4],
        r[5],
        metadata if isinstance(metadata, dict) else {},
        r[7],
        r[8],
    )


# -- NFTs and balances (operation 8) -----------------------------------------------------------


def owned_nfts(
    db: Database,
    chain_id: int,
    owner: str,
    *,
    contract: str | None,
    after: Key | None,
    limit: int,
) -> Page[NftRow]:
    """ERC-721 tokens currently owned by `owner`; key (token, token_id as stored text)."""
    where, params = "", []
    if contract is not None:
        where, params = " AND token = ?", [contract]
    ks, ks_p = keyset("token, token_id", False, after)
    rows = db.query(
        f"SELECT {_NFT_COLS} FROM nfts WHERE chain_id = ? AND owner = ? AND erc_type = 'ERC-721'"
        f"{where}{ks} ORDER BY token, token_id LIMIT ?",
        [chain_id, owner, *params, *ks_p, limit + 1],
    )
    return page_of([_nft(r) for r in rows], limit, lambda n: (n.token, str(n.token_id)))


def nfts(
    db: Database, chain_id: int, ids: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], NftRow]:
    """The known NFT rows among (token, token_id) pairs."""
    found: dict[tuple[str, int], NftRow] = {}
    for part in chunks(sorted(set(ids))):
        pairs = ", ".join("(?, ?)" for _ in part)
        rows = db.query(
            f"SELECT {_NFT_COLS} FROM nfts WHERE chain_id = ?"
            f" AND (token, token_id) IN (VALUES {pairs})",
            [chain_id, *(v for token, token_id in part for v in (token, str(token_id)))],
        )
        found.update(((n.token, n.token_id), n) for n in map(_nft, rows))
    return found


def native_balance(db: Database, chain_id: int, address: str) -> int | None:
    """The latest indexed native balance of `address`, or None when it was never seen."""
    row = db.query_one(
        "SELECT balance FROM balances WHERE chain_id = ? AND address = ?"
        " ORDER BY block_number DESC LIMIT 1",
        (chain_id, address),
    )
    return None if row is None else int(row[0])


# -- contracts and tokens (operations 4 and 10, parties everywhere) ----------------------------


def find_contract(db: Database, chain_id: int, address: str) -> ContractRow | None:
    row = db.query_one(
        f"SELECT {_CONTRACT_COLS} FROM contracts WHERE chain_id = ? AND address = ?",
        (chain_id, address),
    )
    return None if row is None else _contract(row)


def tokens(db: Database, chain_id: int, addresses: Iterable[str]) -> dict[str, TokenRow]:
    """Token facts of those `addresses` that are known contracts (any ERC type)."""
    found: dict[str, TokenRow] = {}
    wanted = sorted(set(addresses))
    if db.dialect == "postgresql" and wanted:
        # One array parameter: a writer's batch names tens of thousands of addresses, which
        # took one round trip per IN list of 500 (sql.CHUNK).
        rows = db.query(
            f"SELECT {_TOKEN_COLS} FROM tokens WHERE chain_id = ? AND address = ANY(?)",
            [chain_id, wanted],
        )
        return {t.address: t for t in map(_token, rows)}
    for part in chunks(wanted):
        rows = db.query(
            f"SELECT {_TOKEN_COLS} FROM tokens WHERE chain_id = ? AND address IN {in_list(part)}",
            [chain_id, *part],
        )
        found.update((t.address, t) for t in map(_token, rows))
    return found


def deployments(
    db: Database, chain_id: int, deployer: str, *, after: Key | None, limit: int
) -> Page[ContractRow]:
    """Contracts whose deploying transaction was sent by `deployer` or whose factory it is,
    newest first; key (block_number, tx_index, address)."""
    key_cols = "block_number, tx_index, address"
    ks, ks_p = keyset(key_cols, True, after)
    sort = order(key_cols, True)
    branch = (
        f"SELECT {_CONTRACT_COLS} FROM contracts WHERE chain_id = ? AND {{role}} = ?{ks}{sort}"
        " LIMIT ?"
    )
    params = [chain_id, deployer, *ks_p, limit + 1]
    rows = db.query(
        f"SELECT * FROM ({branch.format(role='deployer')}) AS d"
        f" UNION SELECT * FROM ({branch.format(role='factory')}) AS f{sort} LIMIT ?",
        [*params, *params, limit + 1],
    )
    return page_of(
        [_contract(r) for r in rows], limit, lambda c: (c.block_number, c.tx_index, c.address)
    )


# -- NFT collections (nfts.list, nfts.get) -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class NftToken:
    """An ERC-721 or ERC-1155 token id as indexed, with its current owner (ERC-721 only)."""

    nft: NftRow
    owner: str | None


def collection_tokens(
    db: Database, chain_id: int, token: str, *, after: Key | None, limit: int
) -> Page[NftToken]:
    """The ids of one NFT contract the index has seen; key (token_id as stored text)."""
    ks, ks_p = keyset("token_id", False, after)
    rows = db.query(
        f"SELECT {_NFT_COLS}, owner FROM nfts WHERE chain_id = ? AND token = ?{ks}"
        " ORDER BY token_id LIMIT ?",
        [chain_id, token, *ks_p, limit + 1],
    )
    items = [NftToken(_nft(r[:-1]), r[-1]) for r in rows]
    return page_of(items, limit, lambda t: (str(t.nft.token_id),))


def find_nft(db: Database, chain_id: int, token: str, token_id: int) -> NftToken | None:
    row = db.query_one(
        f"SELECT {_NFT_COLS}, owner FROM nfts WHERE chain_id = ? AND token = ? AND token_id = ?",
        (chain_id, token, str(token_id)),
    )
    return None if row is None else NftToken(_nft(row[:-1]), row[-1])
