"""An address's P-Chain balance rows (p_balance_rows, schema 23): its unspent UTXOs summed by
what judges their kind at a time, kept from the per-UTXO rows of store/p_holdings.py in the
writer's transaction, so that a balance now reads a row per asset and kind (one for a wallet
of plain AVAX, one per stake period staked) instead of one per UTXO.

A row's key holds its staker's end (rewarded or removed): a staked UTXO moves from the
not-ended row to the ended one in the batch that ends its staker. Amounts are decimal text
(uint64 sums), summed here in Python. It imports no reads of the store: the schema upgrade
(store/p_holdings_schema.py) builds the rows with it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from snowfield.store import sql

# (address, asset, staked, staker ended, start, stakeable locktime, locktime)
BalanceKey = tuple[str, str, int, int, int, int, int]
Deltas = dict[BalanceKey, list[int]]  # key: [amount, UTXO count] to add

_KEY = "address, asset_id, staked, staker_ended, utxo_start, stakeable_locktime, locktime"
# Each unspent UTXO row of these ids, with its staker's end as the store now holds it.
_HELD = (
    "SELECT h.address, h.asset_id, h.staked, CASE WHEN s.ended_tx IS NOT NULL THEN 1 ELSE 0 END,"
    " COALESCE(h.utxo_start, 0), COALESCE(h.stakeable_locktime, 0), COALESCE(h.locktime, 0),"
    " h.amount FROM p_holdings h"
    " LEFT JOIN p_stakers s ON h.staked = 1 AND s.pchain = h.pchain AND s.tx_id = h.tx_id"
    " WHERE h.pchain = ?"
)


class Reads(Protocol):
    def query(self, sql: str, params: Any = ...) -> list[tuple[Any, ...]]: ...


class _Writes(Reads, Protocol):
    def execute(self, sql: str, params: Any = ...) -> Any: ...
    def executemany(self, sql: str, rows: Any) -> None: ...


def held(w: Reads, pchain: str, utxo_ids: Sequence[str]) -> list[tuple[BalanceKey, int]]:
    """(balance key, amount) of each owner row of these UTXOs in p_holdings."""
    out = []
    for chunk in sql.chunks(sorted(set(utxo_ids))):
        for r in w.query(f"{_HELD} AND h.utxo_id IN {sql.in_list(chunk)}", [pchain, *chunk]):
            key = (str(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]))
            out.append((key, int(r[7])))
    return out


def add(deltas: Deltas, rows: Iterable[tuple[BalanceKey, int]], sign: int) -> None:
    for key, amount in rows:
        d = deltas.setdefault(key, [0, 0])
        d[0] += sign * amount
        d[1] += sign


def move_ended(deltas: Deltas, rows: Iterable[tuple[BalanceKey, int]]) -> None:
    """Stake rows (read after their staker ended) out of their not-ended balance row."""
    rows = list(rows)
    add(deltas, [((*k[:3], 0, *k[4:]), a) for k, a in rows], -1)
    add(deltas, rows, 1)


def staked_utxos(w: Reads, pchain: str, staking_txs: Sequence[str]) -> list[str]:
    """The stake outputs of these staking txs."""
    out = []
    for chunk in sql.chunks(sorted(set(staking_txs))):
        out += [
            str(r[0])
            for r in w.query(
                f"SELECT utxo_id FROM p_utxos WHERE pchain = ? AND tx_id IN {sql.in_list(chunk)}"
                " AND staked = 1",
                [pchain, *chunk],
            )
        ]
    return out


def apply(w: _Writes, pchain: str, deltas: Deltas) -> None:
    """The balance rows plus `deltas`; a row whose count reaches 0 goes."""
    deltas = {k: d for k, d in deltas.items() if d != [0, 0]}
    current: dict[BalanceKey, tuple[int, int]] = {}
    for chunk in sql.chunks(sorted({k[0] for k in deltas})):
        for r in w.query(
            f"SELECT {_KEY}, amount, utxo_count FROM p_balance_rows WHERE pchain = ?"
            f" AND address IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        ):
            key = (str(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]))
            current[key] = (int(r[7]), int(r[8]))
    gone, kept = [], []
    for key, (amount, count) in sorted(deltas.items()):
        was = current.get(key, (0, 0))
        total, n = was[0] + amount, was[1] + count
        if n < 0 or total < 0 or (n == 0 and total != 0):
            raise RuntimeError(f"balance row {key} would hold {total} in {n} UTXOs")
        if n == 0:
            gone.append((pchain, *key))
        else:
            kept.append((pchain, *key, str(total), n))
    where = " AND ".join(f"{c.strip()} = ?" for c in f"pchain, {_KEY}".split(","))
    w.executemany(f"DELETE FROM p_balance_rows WHERE {where}", gone)
    w.executemany(
        f"INSERT INTO p_balance_rows (pchain, {_KEY}, amount, utxo_count)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        f" ON CONFLICT (pchain, {_KEY}) DO UPDATE SET amount = excluded.amount,"
        " utxo_count = excluded.utxo_count",
        kept,
    )


def rebuild(w: _Writes, pchain: str) -> None:
    """Schema 23: the rows from p_holdings as the upgrade has just filled it."""
    deltas: Deltas = {}
    rows = w.query(_HELD, (pchain,))
    add(
        deltas,
        (
            ((str(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6])),
             int(r[7]))
            for r in rows
        ),
        1,
    )  # fmt: skip
    apply(w, pchain, deltas)
