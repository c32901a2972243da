"""Reads of the primary network's index: active staking txs (operation 11), current stakers
(operation 12), subnets with their chains (operation 13), and the UTXOs of txs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.primary_rows import StakerRow
from snowfield.store.primary_schema import split_list

STAKING_TX_TYPES = (
    "AddValidatorTx",
    "AddSubnetValidatorTx",
    "AddDelegatorTx",
    "AddPermissionlessValidatorTx",
    "AddPermissionlessDelegatorTx",
)


class Reads(Protocol):
    """A database or a writer's transaction: the document writer reads its own writes."""

    def query(self, sql: str, params: Sequence[Any] = ...) -> list[tuple[Any, ...]]: ...


@dataclass(frozen=True, slots=True)
class PTx:
    tx_id: str
    height: int
    tx_index: int
    block_id: str
    timestamp: int
    tx_type: str
    memo: str
    details: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StakingEntry:
    """One item of operation 11's listing: where it sits, its staker's state, and its stored
    document (None: render it from the rows, see store/primary_documents.py)."""

    tx_id: str
    timestamp: int
    height: int
    tx_index: int
    potential_reward: str | None
    ended_tx: str | None
    document: str | None


@dataclass(frozen=True, slots=True)
class PUtxo:
    utxo_id: str
    tx_id: str
    output_index: int
    asset_id: str
    amount: str
    addresses: tuple[str, ...]
    threshold: int | None
    locktime: int | None
    stakeable_locktime: int | None
    staked: bool
    created_on: str
    consumed_on: str
    utxo_bytes: str | None
    reward_type: str | None
    utxo_start: int | None
    utxo_end: int | None
    block_height: int | None
    block_timestamp: int | None
    consuming_tx: str | None
    consuming_height: int | None
    consuming_timestamp: int | None


@dataclass(frozen=True, slots=True)
class Staker:
    tx_id: str
    kind: str
    node_id: str
    start: int
    end: int
    amount: str
    reward_addresses: tuple[str, ...]
    fee_addresses: tuple[str, ...]
    delegation_fee: int | None
    potential_reward: str | None


@dataclass(frozen=True, slots=True)
class Subnet:
    subnet_id: str
    height: int
    timestamp: int
    owner_addresses: tuple[str, ...]
    threshold: int
    locktime: int
    conversion_tx: str | None
    manager_chain: str | None
    manager_address: str | None


@dataclass(frozen=True, slots=True)
class Blockchain:
    blockchain_id: str
    subnet_id: str
    height: int
    timestamp: int
    name: str
    vm_id: str
    evm_chain_id: int | None
    genesis: str | None


# The chain time the stakers are judged at, as one subquery (its parameter: the pchain); NULL
# (nothing current) before the first sync.
_NOW = (
    "(SELECT COALESCE(n.chain_time, (SELECT MAX(b.timestamp) FROM p_blocks b"
    " WHERE b.pchain = n.pchain)) FROM primary_networks n WHERE n.pchain = ?)"
)


# The P-Chain's time at the last sync (else its last indexed block's), as a scalar subquery
# (another read's column, store/p_holdings.py); one param, the P-Chain id.
CHAIN_TIME = (
    "(SELECT COALESCE(n.chain_time, (SELECT MAX(timestamp) FROM p_blocks b"
    " WHERE b.pchain = n.pchain)) FROM primary_networks n WHERE n.pchain = ?)"
)


def chain_time(db: Reads, pchain: str) -> int | None:
    """The P-Chain's time at the last sync (else its last indexed block's); None before any."""
    rows = db.query(f"SELECT {CHAIN_TIME}", (pchain,))
    return None if not rows or rows[0][0] is None else int(rows[0][0])


def staker(db: Database, pchain: str, tx_id: str) -> StakerRow | None:
    row = db.query_one(
        "SELECT tx_id, kind, node_id, subnet_id, start_time, end_time, amount, reward_addresses,"
        " fee_addresses, delegation_fee FROM p_stakers WHERE pchain = ? AND tx_id = ?",
        (pchain, tx_id),
    )
    if row is None:
        return None
    tx, kind, node, subnet, start, end, amount, reward, fee, shares = row
    return StakerRow(
        tx, kind, node, subnet, start, end, int(amount), split_list(reward), split_list(fee), shares
    )


def ended_at(db: Database, pchain: str, height: int) -> list[str]:
    """The stakers a reward tx of the block at `height` ended."""
    rows = db.query(
        "SELECT s.tx_id FROM p_stakers s JOIN p_txs r ON r.pchain = s.pchain"
        " AND r.tx_id = s.ended_tx WHERE s.pchain = ? AND r.height = ?",
        (pchain, height),
    )
    return [str(r[0]) for r in rows]


def active_staking(
    db: Database,
    pchain: str,
    *,
    addresses: Sequence[str] | None,
    tx_types: Sequence[str] | None,
    start: int | None,
    end: int | None,
    desc: bool,
    after: Key | None,
    limit: int,
) -> Page[StakingEntry]:
    """Staking txs whose staker is current at the index's chain time, newest first or oldest."""
    types = [t for t in (tx_types or STAKING_TX_TYPES) if t in STAKING_TX_TYPES]
    if not types:
        return Page([], None)
    op = "<" if desc else ">"
    order = "DESC" if desc else "ASC"
    # p_staking_txs holds the staking txs only: a tx's own row is read for a narrower filter.
    typed = set(types) != set(STAKING_TX_TYPES)
    with_type = " CROSS JOIN p_txs t" if typed else ""
    params: list[Any] = [pchain]
    where = [f" WHERE k.ended_tx IS NULL AND k.end_time > {_NOW}"]
    if typed:
        where.append(
            " AND t.pchain = k.pchain AND t.tx_id = k.tx_id"
            f" AND t.tx_type IN ({', '.join('?' for _ in types)})"
        )
        params += types
    columns = "k.potential_reward, k.ended_tx, k.document"
    if addresses:
        # One index range of p_tx_addresses per address, each row's staking row found by its
        # position: the cost of a page does not grow with the store.
        # CROSS JOIN: SQLite keeps this join order (the address's index range first), where
        # its planner would walk every tx by time. One address needs no DISTINCT (its rows
        # are unique by tx); several do, and select the position columns so that DISTINCT
        # may order by them on PostgreSQL too.
        distinct = "DISTINCT " if len(addresses) > 1 else ""
        sql = [
            f"SELECT {distinct}k.tx_id, a.timestamp, a.height, a.tx_index, {columns}"
            " FROM p_tx_addresses a CROSS JOIN p_staking_txs k" + with_type,
            *where,
            " AND k.pchain = a.pchain AND k.timestamp = a.timestamp AND k.height = a.height"
            " AND k.tx_index = a.tx_index",
            f" AND a.pchain = ? AND a.address IN ({', '.join('?' for _ in addresses)})",
        ]
        params += [pchain, *addresses]
        alias = "a"
    else:
        sql = [
            f"SELECT k.tx_id, k.timestamp, k.height, k.tx_index, {columns}"
            " FROM p_staking_txs k" + with_type,
            *where,
            " AND k.pchain = ?",
        ]
        params.append(pchain)
        alias = "k"
    if start is not None:
        sql.append(f" AND {alias}.timestamp >= ?")
        params.append(start)
    if end is not None:
        sql.append(f" AND {alias}.timestamp <= ?")
        params.append(end)
    if after is not None:
        sql.append(f" AND ({alias}.timestamp, {alias}.height, {alias}.tx_index) {op} (?, ?, ?)")
        params += list(after)
    sql.append(
        f" ORDER BY {alias}.timestamp {order}, {alias}.height {order},"
        f" {alias}.tx_index {order} LIMIT ?"
    )
    params.append(limit + 1)
    rows = [StakingEntry(*r) for r in db.query("".join(sql), params)]
    return page_of(rows, limit, lambda t: (t.timestamp, t.height, t.tx_index))


def tx_rows(reads: Reads, pchain: str, tx_ids: Sequence[str]) -> list[PTx]:
    """The rows of these txs, in the order given (unknown ids left out)."""
    if not tx_ids:
        return []
    rows = reads.query(
        "SELECT tx_id, height, tx_index, block_id, timestamp, tx_type, memo, details FROM p_txs"
        f" WHERE pchain = ? AND tx_id IN ({', '.join('?' for _ in tx_ids)})",
        [pchain, *tx_ids],
    )
    found = {r[0]: PTx(r[0], r[1], r[2], r[3], r[4], r[5], r[6], orjson.loads(r[7])) for r in rows}
    return [found[t] for t in tx_ids if t in found]


_UTXO_COLUMNS = (
    "utxo_id, tx_id, output_index, asset_id, amount, addresses, threshold, locktime,"
    " stakeable_locktime, staked, created_on, consumed_on, utxo_bytes, reward_type, utxo_start,"
    " utxo_end, block_height, block_timestamp, consuming_tx, consuming_height, consuming_timestamp"
)


def _utxo(row: tuple[Any, ...]) -> PUtxo:
    values = list(row)
    values[5] = split_list(values[5])
    values[9] = bool(values[9])
    return PUtxo(*values)


def utxos_of(
    db: Reads, pchain: str, tx_ids: Sequence[str]
) -> tuple[dict[str, list[PUtxo]], dict[str, list[PUtxo]]]:
    """(emitted by tx, consumed by tx) for the given txs, each in output order."""
    if not tx_ids:
        return {}, {}
    marks = ", ".join("?" for _ in tx_ids)
    emitted: dict[str, list[PUtxo]] = {t: [] for t in tx_ids}
    consumed: dict[str, list[PUtxo]] = {t: [] for t in tx_ids}
    # One statement, each half on its own index (an ORDER BY tx_id would make SQLite walk
    # p_utxos_by_tx for the consumed half: every UTXO of the chain): sorted here.
    rows = db.query(
        f"SELECT 0, {_UTXO_COLUMNS} FROM p_utxos WHERE pchain = ? AND tx_id IN ({marks})"
        " AND reward_type IS NULL"
        f" UNION ALL SELECT 1, {_UTXO_COLUMNS} FROM p_utxos WHERE pchain = ?"
        f" AND consuming_tx IN ({marks})",
        [pchain, *tx_ids, pchain, *tx_ids],
    )
    for row in sorted(rows, key=lambda r: (r[0], r[2], r[3])):
        utxo = _utxo(row[1:])
        if row[0] == 0:
            emitted[utxo.tx_id].append(utxo)
        else:
            assert utxo.consuming_tx is not None
            consumed[utxo.consuming_tx].append(utxo)
    return emitted, consumed


def current_stakers(
    db: Database,
    pchain: str,
    *,
    addresses: Sequence[str] | None,
    node_ids: Sequence[str] | None,
    desc: bool,
    after: tuple[int, str] | None,
    limit: int,
) -> tuple[int, list[Staker]]:
    """(chain time, up to `limit` current primary-network stakers ordered by start time)."""
    now = chain_time(db, pchain)
    if now is None:
        return 0, []
    columns = (
        "s.kind, s.node_id, s.end_time, s.amount, s.reward_addresses, s.fee_addresses,"
        " s.delegation_fee, s.potential_reward"
    )
    current = (
        " s.ended_tx IS NULL AND s.end_time > ? AND s.kind IN ('VALIDATOR', 'DELEGATOR')"
        " AND s.subnet_id = ?"
    )
    op = "<=" if desc else ">="
    order = "DESC" if desc else "ASC"
    if addresses:
        # One index range of p_staker_owners per address, in start order: a page costs the
        # address's stakers, not every current one. CROSS JOIN keeps SQLite in that order.
        distinct = "DISTINCT " if len(addresses) > 1 else ""
        sql = [
            f"SELECT {distinct}o.tx_id, o.start_time, {columns}"
            " FROM p_staker_owners o CROSS JOIN p_stakers s"
            " WHERE s.pchain = o.pchain AND s.tx_id = o.tx_id AND" + current,
            f" AND o.pchain = ? AND o.address IN ({', '.join('?' for _ in addresses)})",
        ]
        params: list[Any] = [now, pchain, pchain, *addresses]
        key = "o"
    else:
        # By node (the service asks for owners or nodes): the node's index range.
        sql = [
            f"SELECT s.tx_id, s.start_time, {columns} FROM p_stakers s WHERE s.pchain = ? AND"
            + current
        ]
        params = [pchain, now, pchain]
        key = "s"
    if node_ids:
        sql.append(f" AND s.node_id IN ({', '.join('?' for _ in node_ids)})")
        params += list(node_ids)
    if after is not None:
        sql.append(f" AND ({key}.start_time, {key}.tx_id) {op} (?, ?)")
        params += list(after)
    sql.append(f" ORDER BY {key}.start_time {order}, {key}.tx_id {order} LIMIT ?")
    params.append(limit)
    rows = db.query("".join(sql), params)
    return now, [
        Staker(r[0], r[2], r[3], r[1], r[4], r[5], split_list(r[6]), split_list(r[7]), r[8], r[9])
        for r in rows
    ]


def subnets(
    db: Database, pchain: str, *, desc: bool, after: Key | None, limit: int
) -> Page[Subnet]:
    sql = (
        "SELECT subnet_id, height, timestamp, owner_addresses, threshold, locktime,"
        " conversion_tx, manager_chain, manager_address FROM p_subnets WHERE pchain = ?"
    )
    params: list[Any] = [pchain]
    op, order = ("<", "DESC") if desc else (">", "ASC")
    if after is not None:
        sql += f" AND (timestamp, subnet_id) {op} (?, ?)"
        params += list(after)
    sql += f" ORDER BY timestamp {order}, subnet_id {order} LIMIT ?"
    params.append(limit + 1)
    rows = [
        Subnet(r[0], r[1], r[2], split_list(r[3]), r[4], r[5], r[6], r[7], r[8])
        for r in db.query(sql, params)
    ]
    return page_of(rows, limit, lambda s: (s.timestamp, s.subnet_id))


def blockchains_of(
    db: Database, pchain: str, subnet_ids: Sequence[str]
) -> dict[str, list[Blockchain]]:
    out: dict[str, list[Blockchain]] = {s: [] for s in subnet_ids}
    if not subnet_ids:
        return out
    for r in db.query(
        "SELECT blockchain_id, subnet_id, height, timestamp, name, vm_id, evm_chain_id, genesis"
        f" FROM p_chains WHERE pchain = ? AND subnet_id IN ({', '.join('?' for _ in subnet_ids)})"
        " ORDER BY height, blockchain_id",
        [pchain, *subnet_ids],
    ):
        out[r[1]].append(Blockchain(*r))
    return out
