"""Reads of the primary network's objects by id or in order: blockchains, one subnet, one
X-Chain vertex by hash."""

from __future__ import annotations

import json
from typing import Any

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.primary_queries import Blockchain, Subnet
from snowfield.store.primary_rows import VertexRow
from snowfield.store.primary_schema import split_list

_CHAIN_COLUMNS = "blockchain_id, subnet_id, height, timestamp, name, vm_id, evm_chain_id, genesis"


def blockchains(
    db: Database, pchain: str, *, desc: bool, after: Key | None, limit: int
) -> Page[Blockchain]:
    """The chains created on the P-Chain, by creation (height, id)."""
    sql = f"SELECT {_CHAIN_COLUMNS} FROM p_chains WHERE pchain = ?"
    params: list[Any] = [pchain]
    op, order = ("<", "DESC") if desc else (">", "ASC")
    if after is not None:
        sql += f" AND (height, blockchain_id) {op} (?, ?)"
        params += [int(after[0]), str(after[1])]
    sql += f" ORDER BY height {order}, blockchain_id {order} LIMIT ?"
    rows = [Blockchain(*r) for r in db.query(sql, [*params, limit + 1])]
    return page_of(rows, limit, lambda c: (c.height, c.blockchain_id))


def blockchain(db: Database, pchain: str, blockchain_id: str) -> Blockchain | None:
    row = db.query_one(
        f"SELECT {_CHAIN_COLUMNS} FROM p_chains WHERE pchain = ? AND blockchain_id = ?",
        (pchain, blockchain_id),
    )
    return None if row is None else Blockchain(*row)


def subnet(db: Database, pchain: str, subnet_id: str) -> Subnet | None:
    r = db.query_one(
        "SELECT subnet_id, height, timestamp, owner_addresses, threshold, locktime,"
        " conversion_tx, manager_chain, manager_address FROM p_subnets"
        " WHERE pchain = ? AND subnet_id = ?",
        (pchain, subnet_id),
    )
    if r is None:
        return None
    return Subnet(r[0], r[1], r[2], split_list(r[3]), r[4], r[5], r[6], r[7], r[8])


def vertex(db: Database, xchain: str, vertex_id: str) -> VertexRow | None:
    r = db.query_one(
        "SELECT idx, vertex_id, height, timestamp, parents, txs, size FROM x_vertices"
        " WHERE xchain = ? AND vertex_id = ?",
        (xchain, vertex_id),
    )
    if r is None:
        return None
    parents, txs = tuple(json.loads(r[4])), tuple(json.loads(r[5]))
    return VertexRow(int(r[0]), str(r[1]), int(r[2]), int(r[3]), parents, txs, int(r[6]))
