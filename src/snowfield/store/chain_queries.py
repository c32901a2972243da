"""The indexed EVM chains: listed by EVM chain id, found by EVM chain id or blockchain id."""

from __future__ import annotations

import json
from typing import Any

from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.schema import CHAIN_COLUMNS
from snowfield.store.sql import MAX_BIGINT

# A derived key is no blockchain id of the network: it reads back as none.
_CHAIN_COLS = (
    "chain_id, CASE WHEN derived_id = 1 THEN NULL ELSE blockchain_id END, " + CHAIN_COLUMNS
)


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


def address_chains(db: Database, address: str) -> list[ChainRow]:
    """The indexed EVM chains where `address` took part in a transaction in any role (sender,
    receiver, token transfer, internal call), by EVM chain id: one key probe per chain."""
    rows = db.query(
        f"SELECT {_CHAIN_COLS} FROM chains c WHERE chain_id IS NOT NULL AND EXISTS (SELECT 1"
        " FROM address_txs a WHERE a.chain_id = c.chain_id AND a.address = ?) ORDER BY chain_id",
        (address,),
    )
    return [_chain(r) for r in rows]
