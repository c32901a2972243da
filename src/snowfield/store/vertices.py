"""The X-Chain's vertices (operations 14-15): written with their checkpoint, read by index
position (latest first) or by height."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.primary_rows import VertexRow


def next_index(db: Database, xchain: str) -> int:
    row = db.query_one("SELECT next_index FROM x_checkpoints WHERE xchain = ?", (xchain,))
    return 0 if row is None else int(row[0])


def write_vertices(db: Database, xchain: str, rows: Sequence[VertexRow], next_at: int) -> None:
    """Writes vertices and moves the checkpoint past them, atomically."""
    with db.transaction() as w:
        w.executemany(
            "INSERT INTO x_vertices (xchain, idx, vertex_id, height, timestamp, parents, txs,"
            " size) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (xchain, idx) DO NOTHING",
            [
                (
                    xchain,
                    v.index,
                    v.vertex_id,
                    v.height,
                    v.timestamp,
                    json.dumps(list(v.parents)),
                    json.dumps(list(v.txs)),
                    v.size,
                )
                for v in rows
            ],
        )
        w.execute(
            "INSERT INTO x_checkpoints (xchain, next_index) VALUES (?, ?) ON CONFLICT (xchain)"
            " DO UPDATE SET next_index = excluded.next_index",
            (xchain, next_at),
        )


def _row(r: tuple[Any, ...]) -> VertexRow:
    return VertexRow(
        int(r[0]),
        str(r[1]),
        int(r[2]),
        int(r[3]),
        tuple(json.loads(r[4])),
        tuple(json.loads(r[5])),
        int(r[6]),
    )


_COLUMNS = "idx, vertex_id, height, timestamp, parents, txs, size"


def latest(db: Database, xchain: str, *, after: Key | None, limit: int) -> Page[VertexRow]:
    """Vertices newest first (by index position)."""
    sql = f"SELECT {_COLUMNS} FROM x_vertices WHERE xchain = ?"
    params: list[Any] = [xchain]
    if after is not None:
        sql += " AND idx < ?"
        params.append(int(after[0]))
    sql += " ORDER BY idx DESC LIMIT ?"
    params.append(limit + 1)
    rows = [_row(r) for r in db.query(sql, params)]
    return page_of(rows, limit, lambda v: (v.index,))


def at_height(
    db: Database, xchain: str, height: int, *, desc: bool, after: Key | None, limit: int
) -> Page[VertexRow]:
    """The vertices of one height, by index position."""
    sql = f"SELECT {_COLUMNS} FROM x_vertices WHERE xchain = ? AND height = ?"
    params: list[Any] = [xchain, height]
    op, order = ("<", "DESC") if desc else (">", "ASC")
    if after is not None:
        sql += f" AND idx {op} ?"
        params.append(int(after[0]))
    sql += f" ORDER BY idx {order} LIMIT ?"
    params.append(limit + 1)
    rows = [_row(r) for r in db.query(sql, params)]
    return page_of(rows, limit, lambda v: (v.index,))
