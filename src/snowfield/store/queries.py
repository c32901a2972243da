"""Read queries of the data service: chains, address activity, blocks, contracts, NFT holdings.

Every listing is keyset-paged (fetch `limit + 1`, never OFFSET) and returns a `Page` whose
`next_key` is the position of its last item; callers turn that into a signed page token.
Rows come back as the dataclasses of `store.rows`, with decimal TEXT turned back into int.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.rows import (
    BlockRow,
    ChainRow,
    ContractRow,
    InternalTxRow,
    NftRow,
    TokenRow,
    TransferRow,
    TxRow,
)
from snowfield.store.schema import CHAIN_COLUMNS

MAX_BIGINT = 2**63 - 1  # BIGINT bound: larger numbers name no row and must not reach PostgreSQL

# A derived key is no blockchain id of the network: it reads back as none.
_CHAIN_COLS = (
    "chain_id, CASE WHEN derived_id = 1 THEN NULL ELSE blockchain_id END, " + CHAIN_COLUMNS
)
_BLOCK_COLS = (
    "chain_id, number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner"
)
_TX_COLS = (
    "chain_id, block_number, tx_index, hash, block_hash, block_timestamp, from_addr, to_addr, "
    "value, nonce, gas_limit, gas_used, gas_price, tx_type, status, selector, created"
)
_TRANSFER_COLS = (
    "chain_id, block_number, tx_index, log_index, batch_index, tx_hash, block_timestamp, token, "
    "erc_type, from_addr, to_addr, token_id, value"
)
_INTERNAL_COLS = (
    "chain_id, block_number, tx_index, trace_index, tx_hash, from_addr, to_addr, call_type, "
    "value, gas_limit, gas_used, reverted"
)
_CONTRACT_COLS = "chain_id, address, block_number, tx_index, tx_hash, deployer, factory, creation"
_TOKEN_COLS = "chain_id, address, erc_type, name, symbol, decimals, first_block"
_NFT_COLS = (
    "chain_id, token, token_id, erc_type, token_uri, index_status, metadata, metadata_updated, "
    "first_block"
)


# -- row conversion ----------------------------------------------------------------------------


def _features(text: str) -> tuple[str, ...]:
    # Written as a JSON array or a comma list; both read the same.
    if text.startswith("["):
        return tuple(str(f) for f in json.loads(text))
    return tuple(f.strip() for f in text.split(",") if f.strip())


def _chain(r: tuple[Any, ...]) -> ChainRow:
    return ChainRow(
        chain_id=r[0],
        blockchain_id=r[1],
        name=r[2],
        network=r[3],
        rpc_url=r[4],
        ws_url=r[5],
        subnet_id=r[6],
        vm_id=r[7],
        description=r[8],
        explorer_url=r[9],
        token_name=r[10],
        token_symbol=r[11],
        token_decimals=r[12],
        token_logo=r[13],
        chain_logo=r[14],
        features=_features(r[15]),
        private=bool(r[16]),
        multicall=r[17],
    )


def _block(r: tuple[Any, ...]) -> BlockRow:
    base_fee = None if r[7] is None else int(r[7])
    return BlockRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], base_fee, r[8], r[9])


def _tx(r: tuple[Any, ...]) -> TxRow:
    return TxRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], int(r[8]), r[9], r[10], r[11],
        int(r[12]), r[13], r[14], r[15], r[16],
    )  # fmt: skip


def _transfer(r: tuple[Any, ...]) -> TransferRow:
    token_id = None if r[11] is None else int(r[11])
    return TransferRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], token_id, int(r[12])
    )


def _internal(r: tuple[Any, ...]) -> InternalTxRow:
    return InternalTxRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], int(r[8]), r[9], r[10], bool(r[11])
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


# -- SQL fragments -----------------------------------------------------------------------------


def _keyset(columns: str, descending: bool, after: Key | None) -> tuple[str, list[Any]]:
    """`AND (a, b) < (?, ?)` (or `>`): rows strictly past the last row of the previous page."""
    if after is None:
        return "", []
    marks = ", ".join("?" for _ in after)
    return f" AND ({columns}) {'<' if descending else '>'} ({marks})", list(after)


def _order(columns: str, descending: bool) -> str:
    way = " DESC" if descending else " ASC"
    return " ORDER BY " + ", ".join(c.strip() + way for c in columns.split(","))


def _range(column: str, start: int | None, end: int | None) -> tuple[str, list[Any]]:
    sql, params = "", []
    if start is not None:
        sql, params = f" AND {column} >= ?", [start]
    if end is not None:
        sql, params = sql + f" AND {column} < ?", [*params, end]
    return sql, params


def _in(values: Sequence[Any]) -> str:
    return "(" + ", ".join("?" for _ in values) + ")"


T = TypeVar("T")
_CHUNK = 500  # values in one IN list: lookups of a whole indexed batch stay far below the
# parameter limits of SQLite and PostgreSQL


def _chunks(values: Sequence[T]) -> Iterator[Sequence[T]]:
    for i in range(0, len(values), _CHUNK):
        yield values[i : i + _CHUNK]


# -- chains ------------------------------------------------------------------------------------


def list_chains(db: Database, *, testnet: bool | None = None) -> list[ChainRow]:
    """Every indexed EVM chain by EVM chain id; `testnet` True/False keeps test or main
    networks only."""
    rows = [
        _chain(r)
        for r in db.query(
            f"SELECT {_CHAIN_COLS} FROM chains WHERE chain_id IS NOT NULL ORDER BY chain_id"
        )
    ]
    return [c for c in rows if on_network(c, testnet)]


def on_network(chain: ChainRow, testnet: bool | None) -> bool:
    """Whether `chain` is on the networks `testnet` names: test (True), main (False), any."""
    return testnet is None or (chain.network != "mainnet") == testnet


def find_chain(db: Database, ref: str) -> ChainRow | None:
    """The EVM chain named by its EVM chain id (decimal) or its blockchain id."""
    if "\x00" in ref or len(ref) > 128:
        return None  # no id looks like this, and PostgreSQL text cannot hold NUL
    if ref.isascii() and ref.isdigit():
        if int(ref) > MAX_BIGINT:
            return None
        row = db.query_one(f"SELECT {_CHAIN_COLS} FROM chains WHERE chain_id = ?", (int(ref),))
    else:
        row = db.query_one(
            f"SELECT {_CHAIN_COLS} FROM chains WHERE blockchain_id = ? AND chain_id IS NOT NULL",
            (ref,),
        )
    return None if row is None else _chain(row)


# -- address activity (operations 5, 6, 7) -----------------------------------------------------


def address_transactions(
    db: Database,
    chain_id: int,
    address: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[TxRow]:
    """Transactions that involve `address` in any role; key (block_number, tx_index)."""
    rng, rng_p = _range("a.block_number", start_block, end_block)
    ks, ks_p = _keyset("a.block_number, a.tx_index", descending, after)
    cols = ", ".join("t." + c.strip() for c in _TX_COLS.split(","))
    rows = db.query(
        f"SELECT {cols} FROM address_txs a JOIN transactions t"
        " ON t.chain_id = a.chain_id AND t.block_number = a.block_number"
        " AND t.tx_index = a.tx_index"
        f" WHERE a.chain_id = ? AND a.address = ?{rng}{ks}"
        f"{_order('a.block_number, a.tx_index', descending)} LIMIT ?",
        [chain_id, address, *rng_p, *ks_p, limit + 1],
    )
    return page_of([_tx(r) for r in rows], limit, lambda t: (t.block_number, t.tx_index))


def address_documents(
    db: Database,
    chain_id: int,
    address: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[tuple[int, int, str | None, str | None]]:
    """The page `address_transactions` would give, as (block, tx index, nativeTransaction
    document, sub-lists document) from operation 5's read model (store/read_model.py)."""
    rng, rng_p = _range("a.block_number", start_block, end_block)
    sql = _documents_sql(rng, after is not None, descending)
    rows = db.query(sql, [chain_id, address, *rng_p, *(after or ()), limit + 1])
    return page_of(rows, limit, lambda r: (r[0], r[1]))


@functools.lru_cache(maxsize=16)
def _documents_sql(rng: str, paged: bool, descending: bool) -> str:
    """Built once per shape: this is the service's hottest read."""
    ks = _keyset("a.block_number, a.tx_index", descending, (0, 0) if paged else None)[0]
    return (
        "SELECT a.block_number, a.tx_index, t.document, a.document FROM address_txs a"
        " JOIN transactions t ON t.chain_id = a.chain_id AND t.block_number = a.block_number"
        " AND t.tx_index = a.tx_index"
        f" WHERE a.chain_id = ? AND a.address = ?{rng}{ks}"
        f"{_order('a.block_number, a.tx_index', descending)} LIMIT ?"
    )


def transfers_in_txs(
    db: Database, chain_id: int, address: str, txs: Sequence[tuple[int, int]]
) -> list[TransferRow]:
    """Token transfers of the given (block_number, tx_index) transactions sent or received by
    `address`, in log order."""
    rows = _rows_of_txs(
        db,
        "transfers",
        _TRANSFER_COLS,
        "block_number, log_index, batch_index",
        chain_id,
        address,
        txs,
    )
    return [_transfer(r) for r in rows]


def internal_txs_in_txs(
    db: Database, chain_id: int, address: str, txs: Sequence[tuple[int, int]]
) -> list[InternalTxRow]:
    """Internal transactions of the given transactions where `address` is `from` or `to`."""
    rows = _rows_of_txs(
        db,
        "internal_txs",
        _INTERNAL_COLS,
        "block_number, tx_index, trace_index",
        chain_id,
        address,
        txs,
    )
    return [_internal(r) for r in rows]


def _rows_of_txs(
    db: Database,
    table: str,
    cols: str,
    order: str,
    chain_id: int,
    address: str,
    txs: Sequence[tuple[int, int]],
) -> list[tuple[Any, ...]]:
    """Rows of `table` in the given transactions where `address` is `from` or `to`."""
    if not txs:
        return []
    pairs = ", ".join("(?, ?)" for _ in txs)
    blocks = sorted({b for b, _ in txs})
    # `block_number IN` lets the primary key find the blocks; tx_index is not in that key.
    return db.query(
        f"SELECT {cols} FROM {table} WHERE chain_id = ?"
        f" AND block_number IN {_in(blocks)} AND (block_number, tx_index) IN (VALUES {pairs})"
        f" AND (from_addr = ? OR to_addr = ?) ORDER BY {order}",
        [chain_id, *blocks, *(v for tx in txs for v in tx), address, address],
    )


def address_transfers(
    db: Database,
    chain_id: int,
    address: str,
    erc_type: str,
    *,
    start_block: int | None,
    end_block: int | None,
    descending: bool,
    after: Key | None,
    limit: int,
) -> Page[TransferRow]:
    """Transfers of one ERC type sent or received by `address`;
    key (block_number, log_index, batch_index)."""
    rng, rng_p = _range("block_number", start_block, end_block)
    key_cols = "block_number, log_index, batch_index"
    ks, ks_p = _keyset(key_cols, descending, after)
    order = _order(key_cols, descending)
    # One index scan per role, merged: an OR over two columns would defeat both indexes.
    branch = (
        f"SELECT {_TRANSFER_COLS} FROM transfers WHERE chain_id = ? AND {{role}} = ?"
        f" AND erc_type = ?{rng}{ks}{order} LIMIT ?"
    )
    params = [chain_id, address, erc_type, *rng_p, *ks_p, limit + 1]
    rows = db.query(
        f"SELECT * FROM ({branch.format(role='from_addr')}) AS f"
        f" UNION SELECT * FROM ({branch.format(role='to_addr')}) AS t{order} LIMIT ?",
        [*params, *params, limit + 1],
    )
    return page_of(
        [_transfer(r) for r in rows],
        limit,
        lambda t: (t.block_number, t.log_index, t.batch_index),
    )


def block_hashes(db: Database, chain_id: int, numbers: Sequence[int]) -> dict[int, str]:
    """Hashes of those blocks among `numbers` that are stored."""
    unique = sorted(set(numbers))
    if not unique:
        return {}
    rows = db.query(
        f"SELECT number, hash FROM blocks WHERE chain_id = ? AND number IN {_in(unique)}",
        [chain_id, *unique],
    )
    return {int(r[0]): str(r[1]) for r in rows}


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
    ks, ks_p = _keyset("token, token_id", False, after)
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
    for part in _chunks(sorted(set(ids))):
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


# -- blocks (operation 9) ----------------------------------------------------------------------


def find_block(db: Database, chain_id: int, ref: int | str) -> BlockRow | None:
    """A block by number (int) or by 0x hash (str)."""
    if isinstance(ref, int):
        if ref > MAX_BIGINT:
            return None
        row = db.query_one(
            f"SELECT {_BLOCK_COLS} FROM blocks WHERE chain_id = ? AND number = ?", (chain_id, ref)
        )
    else:
        row = db.query_one(
            f"SELECT {_BLOCK_COLS} FROM blocks WHERE chain_id = ? AND hash = ?", (chain_id, ref)
        )
    return None if row is None else _block(row)


def block_transactions(
    db: Database, chain_id: int, number: int, *, after: Key | None, limit: int | None
) -> Page[TxRow]:
    """Transactions of one block in index order; `limit` None means the whole block."""
    ks, ks_p = _keyset("tx_index", False, after)
    sql = (
        f"SELECT {_TX_COLS} FROM transactions WHERE chain_id = ? AND block_number = ?{ks}"
        " ORDER BY tx_index"
    )
    params: list[Any] = [chain_id, number, *ks_p]
    if limit is None:
        return Page([_tx(r) for r in db.query(sql, params)], None)
    rows = db.query(sql + " LIMIT ?", [*params, limit + 1])
    return page_of([_tx(r) for r in rows], limit, lambda t: (t.tx_index,))


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
    for part in _chunks(sorted(set(addresses))):
        rows = db.query(
            f"SELECT {_TOKEN_COLS} FROM tokens WHERE chain_id = ? AND address IN {_in(part)}",
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
    ks, ks_p = _keyset(key_cols, True, after)
    order = _order(key_cols, True)
    branch = (
        f"SELECT {_CONTRACT_COLS} FROM contracts WHERE chain_id = ? AND {{role}} = ?{ks}{order}"
        " LIMIT ?"
    )
    params = [chain_id, deployer, *ks_p, limit + 1]
    rows = db.query(
        f"SELECT * FROM ({branch.format(role='deployer')}) AS d"
        f" UNION SELECT * FROM ({branch.format(role='factory')}) AS f{order} LIMIT ?",
        [*params, *params, limit + 1],
    )
    return page_of(
        [_contract(r) for r in rows], limit, lambda c: (c.block_number, c.tx_index, c.address)
    )
