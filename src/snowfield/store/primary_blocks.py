"""P-Chain blocks as the data API shows them: what a block's bytes hold beyond p_blocks (its
type, size, platformvm id and the ProposerVM header: proposer node, P-Chain height, time),
written with the block, and the reads of the block operations (one block, the latest, a
node's proposals)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from snowfield.store import sql
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of


@dataclass(frozen=True, slots=True)
class ProposerRow:
    """The ProposerVM header of a wrapped block (node None: an unsigned or option block)."""

    block_id: str
    parent_id: str
    node_id: str | None
    p_chain_height: int | None
    timestamp: int | None


@dataclass(frozen=True, slots=True)
class BlockDetail:
    block_id: str  # the platformvm block's id
    parent_id: str
    block_type: str  # the platformvm block's type name, e.g. BanffStandardBlock
    size: int  # bytes of the container as accepted
    proposer: ProposerRow | None


@dataclass(frozen=True, slots=True)
class PBlock:
    height: int
    timestamp: int
    detail: BlockDetail
    txs: tuple[str, ...]


class _Writes(Protocol):
    def executemany(self, sql: str, rows: Any) -> None: ...


def write(w: _Writes, pchain: str, blocks: Sequence[tuple[int, BlockDetail | None]]) -> None:
    """The details of (height, detail) pairs; blocks without details are left out."""
    rows = []
    for height, d in blocks:
        if d is None:
            continue
        p = d.proposer
        header = (None,) * 5 if p is None else (
            p.block_id, p.parent_id, p.node_id, p.p_chain_height, p.timestamp
        )  # fmt: skip
        rows.append((pchain, height, d.block_id, d.parent_id, d.block_type, d.size, *header))
    w.executemany(
        "INSERT INTO p_block_details (pchain, height, block_id, parent_id, block_type, size,"
        " proposer_id, proposer_parent, proposer_node, proposer_height, proposer_time)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, height) DO NOTHING",
        rows,
    )


_COLUMNS = (
    "b.height, b.timestamp, d.block_id, d.parent_id, d.block_type, d.size, d.proposer_id,"
    " d.proposer_parent, d.proposer_node, d.proposer_height, d.proposer_time"
)
_FROM = " FROM p_block_details d JOIN p_blocks b ON b.pchain = d.pchain AND b.height = d.height"


def _blocks(db: Database, pchain: str, rows: list[tuple[Any, ...]]) -> list[PBlock]:
    heights = [int(r[0]) for r in rows]
    txs: dict[int, list[str]] = {h: [] for h in heights}
    for chunk in sql.chunks(heights):
        for height, tx_id in db.query(
            f"SELECT height, tx_id FROM p_txs WHERE pchain = ? AND height IN {sql.in_list(chunk)}"
            " ORDER BY height, tx_index",
            [pchain, *chunk],
        ):
            txs[int(height)].append(str(tx_id))
    out = []
    for r in rows:
        proposer = None if r[6] is None else ProposerRow(r[6], r[7], r[8], r[9], r[10])
        detail = BlockDetail(r[2], r[3], r[4], int(r[5]), proposer)
        out.append(PBlock(int(r[0]), int(r[1]), detail, tuple(txs[int(r[0])])))
    return out


def block(db: Database, pchain: str, ref: str) -> PBlock | None:
    """The block a height, its platformvm id or its container's id names."""
    params: list[Any]
    if ref.isdigit():
        where, params = "d.height = ?", [int(ref)]  # within BIGINT: the API checked it
    else:
        where, params = "d.block_id = ?", [ref]
    rows = db.query(f"SELECT {_COLUMNS}{_FROM} WHERE d.pchain = ? AND {where}", [pchain, *params])
    if not rows and not ref.isdigit():
        rows = db.query(
            f"SELECT {_COLUMNS}{_FROM} WHERE d.pchain = ? AND d.proposer_id = ?", [pchain, ref]
        )
    return _blocks(db, pchain, rows)[0] if rows else None


def latest(
    db: Database,
    pchain: str,
    *,
    node_id: str | None,
    start: int | None,
    end: int | None,
    after: Key | None,
    limit: int,
) -> Page[PBlock]:
    """Blocks newest first (of one proposer node when `node_id` is given), within
    [start, end] by time when given."""
    where = ["d.pchain = ?"]
    params: list[Any] = [pchain]
    if node_id is not None:
        where.append("d.proposer_node = ?")
        params.append(node_id)
    if start is not None:
        where.append("b.timestamp >= ?")
        params.append(start)
    if end is not None:
        where.append("b.timestamp <= ?")
        params.append(end)
    if after is not None:
        where.append("d.height < ?")
        params.append(int(after[0]))
    rows = db.query(
        f"SELECT {_COLUMNS}{_FROM} WHERE {' AND '.join(where)} ORDER BY d.height DESC LIMIT ?",
        [*params, limit + 1],
    )
    page = page_of(rows, limit, lambda r: (int(r[0]),))
    return Page(_blocks(db, pchain, list(page.items)), page.next_key)
