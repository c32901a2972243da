"""Reads of the X-Chain index (store/x_schema.py): the UTXOs addresses own (balances and the
UTXO listings), their last activity, txs by address, asset, type and time, one tx with the
UTXOs it emitted and consumed and where it was accepted, and assets.

An address's UTXOs are one index range of x_utxo_owners; its txs one of x_tx_addresses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store.database import Database
from snowfield.store.p_address_queries import (
    LastActivity,
    TxFilter,
    UtxoFilter,
    utxo_page_clauses,
)
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.primary_queries import Reads


def _marks(items: Sequence[Any]) -> str:
    return ", ".join("?" for _ in items)


@dataclass(frozen=True, slots=True)
class XUtxo:
    utxo_id: str
    tx_id: str
    output_index: int
    asset_id: str
    amount: str
    addresses: tuple[str, ...]
    threshold: int
    locktime: int
    output_type: str
    consumed_on: str
    utxo_bytes: str
    timestamp: int
    consuming_tx: str | None
    consuming_timestamp: int | None


_COLUMNS = (
    "u.utxo_id, u.tx_id, u.output_index, u.asset_id, u.amount, u.addresses, u.threshold,"
    " u.locktime, u.output_type, u.consumed_on, u.utxo_bytes, u.timestamp, u.consuming_tx,"
    " u.consuming_timestamp"
)


def _utxo(r: Sequence[Any]) -> XUtxo:
    return XUtxo(
        str(r[0]),
        str(r[1]),
        int(r[2]),
        str(r[3]),
        str(r[4]),
        tuple(a for a in str(r[5]).split(",") if a),
        int(r[6]),
        int(r[7]),
        str(r[8]),
        str(r[9]),
        str(r[10]),
        int(r[11]),
        None if r[12] is None else str(r[12]),
        None if r[13] is None else int(r[13]),
    )


def _owned(addresses: Sequence[str]) -> tuple[str, list[Any]]:
    """UTXOs owned by one of `addresses` and kept on the X-Chain: FROM clause and params."""
    sql = (
        " FROM x_utxo_owners o CROSS JOIN x_utxos u WHERE o.xchain = ?"
        f" AND o.address IN ({_marks(addresses)}) AND u.xchain = o.xchain"
        " AND u.utxo_id = o.utxo_id AND u.consumed_on = o.xchain"
    )
    return sql, list(addresses)


def held(db: Database, xchain: str, addresses: Sequence[str], at: int | None) -> list[XUtxo]:
    """The UTXOs `addresses` held at time `at` (None: now)."""
    where, params = _owned(addresses)
    distinct = "DISTINCT " if len(addresses) > 1 else ""
    sql = f"SELECT {distinct}{_COLUMNS}{where}"
    args: list[Any] = [xchain, *params]
    if at is None:
        sql += " AND u.consuming_tx IS NULL"
    else:
        sql += " AND u.timestamp <= ? AND (u.consuming_tx IS NULL OR u.consuming_timestamp > ?)"
        args += [at, at]
    return [_utxo(r) for r in db.query(sql, args)]


def utxo_page(
    db: Database,
    xchain: str,
    addresses: Sequence[str],
    f: UtxoFilter,
    after: Key | None,
    limit: int,
) -> Page[XUtxo]:
    """A page of the UTXOs these addresses own, by time or amount, then UTXO id."""
    if f.by_amount:
        keys = ["LENGTH(u.amount)", "u.amount", "u.utxo_id"]
    else:
        keys = ["u.timestamp", "u.utxo_id"]
    where, params = _owned(addresses)
    distinct = "DISTINCT " if len(addresses) > 1 else ""
    sql = [f"SELECT {distinct}{_COLUMNS}, {keys[0]}{where}"]
    args: list[Any] = [xchain, *params]
    sql.append(utxo_page_clauses(f, keys, after, "u.consuming_tx IS NULL", args))
    args.append(limit + 1)
    utxos = [_utxo(r[:-1]) for r in db.query("".join(sql), args)]

    def key(u: XUtxo) -> Key:
        if f.by_amount:
            return (len(u.amount), u.amount, u.utxo_id)
        return (u.timestamp, u.utxo_id)

    return page_of(utxos, limit, key)


def last_activity(db: Database, xchain: str, addresses: Sequence[str]) -> LastActivity | None:
    """The latest creation or consumption of a UTXO these addresses own; its `height` is the
    block height of the tx that made it (linear era), else the vertex's."""
    where, params = _owned(addresses)
    rows = db.query(
        "SELECT u.timestamp, u.idx, u.tx_id, u.utxo_id, u.consuming_timestamp, u.consuming_idx,"
        f" u.consuming_tx{where}",
        [xchain, *params],
    )
    best: tuple[int, int, str, str, bool] | None = None  # (time, position, tx, utxo, consumed)
    for made, idx, tx, utxo, spent, spent_idx, consumer in rows:
        events = [(int(made), int(idx), str(tx), str(utxo), False)]
        if consumer is not None:
            events.append((int(spent), int(spent_idx), str(consumer), str(utxo), True))
        for e in events:
            if best is None or e[:2] > best[:2]:
                best = e
    if best is None:
        return None
    # Invariant: x_tx_places names every indexed tx's block (or vertices) once synced.
    found = places(db, xchain, [best[2]])[best[2]]
    at = next((p for p in found if p.kind == "block"), found[0] if found else None)
    return LastActivity(best[0], at.height if at else 0, best[2], best[3], best[4])


def has_activity(db: Database, xchain: str, address: str) -> bool:
    """Whether any indexed X-Chain tx names `address`."""
    return bool(
        db.query(
            "SELECT 1 FROM x_tx_addresses WHERE xchain = ? AND address = ? LIMIT 1",
            (xchain, address),
        )
    )


@dataclass(frozen=True, slots=True)
class XTx:
    tx_id: str
    index: int
    timestamp: int
    tx_type: str
    memo: str
    source_chain: str | None
    destination_chain: str | None


_TX_COLUMNS = "t.tx_id, t.idx, t.timestamp, t.tx_type, t.memo, t.source_chain, t.destination_chain"


def _tx(r: Sequence[Any]) -> XTx:
    return XTx(
        str(r[0]),
        int(r[1]),
        int(r[2]),
        str(r[3]),
        str(r[4]),
        None if r[5] is None else str(r[5]),
        None if r[6] is None else str(r[6]),
    )


def tx(db: Database, xchain: str, tx_id: str) -> XTx | None:
    row = db.query_one(
        f"SELECT {_TX_COLUMNS} FROM x_txs t WHERE t.xchain = ? AND t.tx_id = ?", (xchain, tx_id)
    )
    return None if row is None else _tx(row)


def tx_page(
    db: Database,
    xchain: str,
    f: TxFilter,
    after: Key | None,
    limit: int,
    asset_id: str | None = None,
) -> Page[XTx]:
    """A page of X-Chain txs in acceptance order: all, those naming these addresses, or those
    creating, emitting or consuming UTXOs of `asset_id`."""
    op, order = ("<", "DESC") if f.desc else (">", "ASC")
    sql = [f"SELECT {_TX_COLUMNS} FROM x_txs t WHERE t.xchain = ?"]
    args: list[Any] = [xchain]
    if f.addresses:
        sql.append(
            " AND t.idx IN (SELECT a.idx FROM x_tx_addresses a WHERE a.xchain = t.xchain"
            f" AND a.address IN ({_marks(f.addresses)}))"
        )
        args += list(f.addresses)
    if asset_id is not None:
        sql.append(
            " AND (t.tx_id = ? OR t.tx_id IN (SELECT u.tx_id FROM x_utxos u WHERE u.xchain ="
            " t.xchain AND u.asset_id = ?) OR t.tx_id IN (SELECT u.consuming_tx FROM x_utxos u"
            " WHERE u.xchain = t.xchain AND u.asset_id = ? AND u.consuming_tx IS NOT NULL))"
        )
        args += [asset_id, asset_id, asset_id]
    if f.tx_types:
        sql.append(f" AND t.tx_type IN ({_marks(f.tx_types)})")
        args += list(f.tx_types)
    if f.start is not None:
        sql.append(" AND t.timestamp >= ?")
        args.append(f.start)
    if f.end is not None:
        sql.append(" AND t.timestamp <= ?")
        args.append(f.end)
    if after is not None:
        sql.append(f" AND t.idx {op} ?")
        args.append(after[0])
    sql.append(f" ORDER BY t.idx {order} LIMIT ?")
    args.append(limit + 1)
    rows = [_tx(r) for r in db.query("".join(sql), args)]
    return page_of(rows, limit, lambda t: (t.index,))


def tx_utxos(
    db: Reads, xchain: str, tx_ids: Sequence[str]
) -> tuple[dict[str, list[XUtxo]], dict[str, list[XUtxo]]]:
    """(emitted, consumed) UTXOs of each of these txs, in output order / UTXO id order."""
    emitted: dict[str, list[XUtxo]] = {t: [] for t in tx_ids}
    consumed: dict[str, list[XUtxo]] = {t: [] for t in tx_ids}
    if not tx_ids:
        return emitted, consumed
    marks = _marks(tx_ids)
    for r in db.query(
        f"SELECT {_COLUMNS} FROM x_utxos u WHERE u.xchain = ? AND u.tx_id IN ({marks})"
        " ORDER BY u.tx_id, u.output_index",
        [xchain, *tx_ids],
    ):
        u = _utxo(r)
        emitted[u.tx_id].append(u)
    for r in db.query(
        f"SELECT {_COLUMNS} FROM x_utxos u WHERE u.xchain = ? AND u.consuming_tx IN ({marks})"
        " ORDER BY u.utxo_id",
        [xchain, *tx_ids],
    ):
        u = _utxo(r)
        assert u.consuming_tx is not None
        consumed[u.consuming_tx].append(u)
    return emitted, consumed


@dataclass(frozen=True, slots=True)
class XPlaceRow:
    kind: str  # vertex | block
    container_id: str
    height: int
    timestamp: int


def places(db: Database, xchain: str, tx_ids: Sequence[str]) -> dict[str, list[XPlaceRow]]:
    out: dict[str, list[XPlaceRow]] = {t: [] for t in tx_ids}
    if not tx_ids:
        return out
    for tx_id, kind, cid, height, ts in db.query(
        "SELECT tx_id, kind, container_id, height, timestamp FROM x_tx_places"
        f" WHERE xchain = ? AND tx_id IN ({_marks(tx_ids)}) ORDER BY idx",
        [xchain, *tx_ids],
    ):
        out[str(tx_id)].append(XPlaceRow(str(kind), str(cid), int(height), int(ts)))
    return out


@dataclass(frozen=True, slots=True)
class XAsset:
    asset_id: str
    name: str
    symbol: str
    denomination: int
    cap: str
    timestamp: int
    fungible: bool


def assets(db: Reads, xchain: str, asset_ids: Sequence[str]) -> dict[str, XAsset]:
    """The indexed assets among these (an asset created in the genesis is not among them)."""
    if not asset_ids:
        return {}
    ids = sorted(set(asset_ids))
    rows = db.query(
        "SELECT a.asset_id, a.name, a.symbol, a.denomination, a.cap, a.timestamp, (SELECT"
        " COUNT(*) FROM x_utxos u WHERE u.xchain = a.xchain AND u.tx_id = a.asset_id AND"
        " u.output_type IN ('NFT', 'NFT_MINT')) FROM x_assets a"
        f" WHERE a.xchain = ? AND a.asset_id IN ({_marks(ids)})",
        [xchain, *ids],
    )
    return {
        str(r[0]): XAsset(
            str(r[0]), str(r[1]), str(r[2]), int(r[3]), str(r[4]), int(r[5]), not r[6]
        )
        for r in rows
    }


def asset_ids_of_txs(db: Database, xchain: str, tx_ids: Sequence[str]) -> list[str]:
    """Every asset the UTXOs of these txs (emitted or consumed) are of."""
    if not tx_ids:
        return []
    marks = _marks(tx_ids)
    rows = db.query(
        f"SELECT DISTINCT asset_id FROM x_utxos WHERE xchain = ? AND (tx_id IN ({marks})"
        f" OR consuming_tx IN ({marks}))",
        [xchain, *tx_ids, *tx_ids],
    )
    return [str(r[0]) for r in rows]
