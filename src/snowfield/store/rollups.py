"""Applying metrics rollups: bucket deltas the indexer computes are added to the rollup tables
inside the transaction that writes their blocks; an unwind forgets and rebuilds whole buckets."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from snowfield.store.buckets import INTERVALS, Interval, bucket_start
from snowfield.store.database import Writer
from snowfield.store.rows import BlockBundle, BlockRow, ContractRow, TransferRow, TxRow

Rate = tuple[int, int]  # numerator, denominator (seconds, >= 1): compared exactly


@dataclass(slots=True)
class BucketDelta:
    """What a run of blocks adds to one bucket; built by the indexer, added by the store."""

    span: Interval
    bucket: int
    first_ts: int  # timestamp of the first block of these blocks in the bucket
    prev_ts: int | None  # timestamp of the block before that one (None at genesis)
    last_ts: int = 0
    blocks: int = 0
    txs: int = 0
    gas_used: int = 0  # receipts
    block_gas: int = 0  # block headers
    contracts: int = 0
    fees: int = 0
    price_sum: int = 0
    price_max: int = 0
    max_tps: Rate = (0, 1)
    max_gps: Rate = (0, 1)
    addresses: set[str] = field(default_factory=set)
    senders: set[str] = field(default_factory=set)
    deployers: set[str] = field(default_factory=set)


# The pure rollup math (snowfield.indexer.rollups.compute): deltas of consecutive blocks, given
# the timestamp of the block before the first. It may read only block, txs, transfers and
# contracts of a bundle: that is all an unwind reloads from the raw rows.
Rollups = Callable[[Sequence[BlockBundle], int | None], list[BucketDelta]]

# Stored as decimal TEXT (can exceed 64 bits); every other counter is BIGINT.
TEXT_COLUMNS = frozenset({"gas_used", "block_gas", "fees", "price_sum", "price_max", "gps_num"})
COLUMNS = (
    "blocks", "txs", "gas_used", "block_gas", "contracts", "fees", "price_sum", "price_max",
    "tps_num", "tps_den", "gps_num", "gps_den", "first_ts", "last_ts", "prev_ts",
    "addresses", "senders", "deployers", "new_addresses", "new_deployers",
)  # fmt: skip
KINDS = (("address", "addresses"), ("sender", "senders"), ("deployer", "deployers"))
# Kinds whose first sighting per chain feeds a cumulative metric (day buckets only).
FIRST_SEEN = (("address", "addresses", "new_addresses"), ("deployer", "deployers", "new_deployers"))
_CHUNK = 500
_REBUILD_BLOCKS = 500

Row = dict[str, Any]


def add_batch(
    w: Writer, chain_id: int, bundles: Sequence[BlockBundle], rollups: Rollups, now: int
) -> None:
    """Adds the rollups of blocks not yet covered by the checkpoint (a replayed batch adds
    nothing twice)."""
    done = w.query("SELECT height FROM checkpoints WHERE chain_id = ?", (chain_id,))
    height = int(done[0][0]) if done else -1
    fresh = [b for b in bundles if b.block.number > height]
    if not fresh:
        return
    apply(w, chain_id, rollups(fresh, _timestamp(w, chain_id, fresh[0].block.number - 1)), now)


def _timestamp(w: Writer, chain_id: int, number: int) -> int | None:
    rows = w.query(
        "SELECT timestamp FROM blocks WHERE chain_id = ? AND number = ?", (chain_id, number)
    )
    return int(rows[0][0]) if rows else None


def apply(w: Writer, chain_id: int, deltas: Iterable[BucketDelta], now: int) -> None:
    """Adds each delta to its bucket row and member sets, oldest bucket first (so that a
    member's first day is the earliest); records the run. A handful of statements per call,
    whatever the number of buckets: rows and members are read and written in bulk."""
    ordered = sorted(deltas, key=lambda d: (d.bucket, INTERVALS.index(d.span)))
    rows = _load(w, chain_id, ordered)
    firsts = _FirstSeen(w, chain_id, [d for d in ordered if d.span == "day"])
    members: list[tuple[Any, ...]] = []
    for delta in ordered:
        key = (delta.span, delta.bucket)
        existed = key in rows
        row = rows[key] = _merge(rows.get(key), delta)
        for kind, attr in KINDS:
            fresh: set[str] = getattr(delta, attr)
            if existed:  # only a bucket that began in an earlier batch can know them
                fresh = _new_members(w, chain_id, kind, delta, fresh)
            members += [(chain_id, kind, delta.span, delta.bucket, m) for m in fresh]
            row[attr] += len(fresh)
        if delta.span == "day":
            for kind, attr, counter in FIRST_SEEN:
                row[counter] += firsts.add(kind, delta.bucket, getattr(delta, attr))
    w.executemany(
        "INSERT INTO rollup_members (chain_id, kind, span, bucket, member) VALUES (?, ?, ?, ?, ?)",
        members,
    )
    firsts.write()
    _save(w, chain_id, rows, {(d.span, d.bucket) for d in ordered})
    w.execute(
        "INSERT INTO rollup_runs (chain_id, last_run, version) VALUES (?, ?, 1)"
        " ON CONFLICT (chain_id) DO UPDATE SET last_run = excluded.last_run,"
        " version = rollup_runs.version + 1",
        (chain_id, now),
    )


def _load(w: Writer, chain_id: int, deltas: Sequence[BucketDelta]) -> dict[tuple[str, int], Row]:
    """The stored rows of the deltas' buckets, one query per interval."""
    out: dict[tuple[str, int], Row] = {}
    for span in INTERVALS:
        buckets = sorted({d.bucket for d in deltas if d.span == span})
        for i in range(0, len(buckets), _CHUNK):
            part = buckets[i : i + _CHUNK]
            for r in w.query(
                f"SELECT bucket, {', '.join(COLUMNS)} FROM rollups WHERE chain_id = ?"
                f" AND span = ? AND bucket IN ({', '.join('?' * len(part))})",
                (chain_id, span, *part),
            ):
                out[(span, int(r[0]))] = {
                    c: None if v is None else int(v) for c, v in zip(COLUMNS, r[1:], strict=True)
                }
    return out


def faster(a: Rate, b: Rate) -> Rate:
    """The higher of two rates (exact: cross-multiplied)."""
    return a if a[0] * b[1] >= b[0] * a[1] else b


def _merge(row: Row | None, d: BucketDelta) -> Row:
    if row is None:
        row = dict.fromkeys(COLUMNS, 0)
        row.update(first_ts=d.first_ts, prev_ts=d.prev_ts, tps_den=1, gps_den=1)
    for name in ("blocks", "txs", "gas_used", "block_gas", "contracts", "fees", "price_sum"):
        row[name] += getattr(d, name)
    row["price_max"] = max(row["price_max"], d.price_max)
    row["last_ts"] = max(row["last_ts"], d.last_ts)
    row["tps_num"], row["tps_den"] = faster((row["tps_num"], row["tps_den"]), d.max_tps)
    row["gps_num"], row["gps_den"] = faster((row["gps_num"], row["gps_den"]), d.max_gps)
    return row


def _save(
    w: Writer, chain_id: int, rows: dict[tuple[str, int], Row], keys: set[tuple[str, int]]
) -> None:
    updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS)
    w.executemany(
        f"INSERT INTO rollups (chain_id, span, bucket, {', '.join(COLUMNS)})"
        f" VALUES ({', '.join('?' * (len(COLUMNS) + 3))})"
        f" ON CONFLICT (chain_id, span, bucket) DO UPDATE SET {updates}",
        [
            (chain_id, span, bucket,
             *(str(rows[(span, bucket)][c]) if c in TEXT_COLUMNS else rows[(span, bucket)][c]
               for c in COLUMNS))
            for span, bucket in sorted(keys)
        ],
    )  # fmt: skip


def _present(w: Writer, sql: str, head: tuple[Any, ...], members: set[str]) -> set[str]:
    """Which of `members` the query (ending in `member IN`) finds, in chunks."""
    wanted = sorted(members)
    found: set[str] = set()
    for i in range(0, len(wanted), _CHUNK):
        part = wanted[i : i + _CHUNK]
        rows = w.query(f"{sql} ({', '.join('?' * len(part))})", (*head, *part))
        found.update(str(r[0]) for r in rows)
    return found


def _new_members(
    w: Writer, chain_id: int, kind: str, d: BucketDelta, members: set[str]
) -> set[str]:
    if not members:
        return set()
    known = _present(
        w,
        "SELECT member FROM rollup_members WHERE chain_id = ? AND kind = ? AND span = ?"
        " AND bucket = ? AND member IN",
        (chain_id, kind, d.span, d.bucket),
        members,
    )
    return members - known


class _FirstSeen:
    """First sightings per chain of the batch's day members: one lookup per kind for the whole
    batch, then days in order (a member new on two days of the batch counts on the first)."""

    def __init__(self, w: Writer, chain_id: int, days: Sequence[BucketDelta]) -> None:
        self.w = w
        self.chain_id = chain_id
        self.known: dict[str, set[str]] = {}
        self.new: list[tuple[Any, ...]] = []
        for kind, attr, _ in FIRST_SEEN:
            wanted: set[str] = set().union(*(getattr(d, attr) for d in days))
            self.known[kind] = _present(
                w,
                "SELECT member FROM rollup_first_seen WHERE chain_id = ? AND kind = ?"
                " AND member IN",
                (chain_id, kind),
                wanted,
            ) if wanted else set()  # fmt: skip

    def add(self, kind: str, day: int, members: set[str]) -> int:
        fresh = members - self.known[kind]
        self.known[kind] |= fresh
        self.new += [(self.chain_id, kind, m, day) for m in sorted(fresh)]
        return len(fresh)

    def write(self) -> None:
        self.w.executemany(
            "INSERT INTO rollup_first_seen (chain_id, kind, member, day) VALUES (?, ?, ?, ?)",
            self.new,
        )


# -- unwinds ------------------------------------------------------------------------------


def forget_from(w: Writer, chain_id: int, height: int) -> int | None:
    """Before blocks >= height are deleted: drops every bucket (per interval) from the one
    holding the first of them on; returns that block's timestamp (None: nothing to forget)."""
    rows = w.query(
        "SELECT MIN(timestamp) FROM blocks WHERE chain_id = ? AND number >= ?", (chain_id, height)
    )
    if not rows or rows[0][0] is None:
        return None
    since = int(rows[0][0])
    for span in INTERVALS:
        start = bucket_start(span, since)
        for table in ("rollups", "rollup_members"):
            w.execute(
                f"DELETE FROM {table} WHERE chain_id = ? AND span = ? AND bucket >= ?",
                (chain_id, span, start),
            )
    w.execute(
        "DELETE FROM rollup_first_seen WHERE chain_id = ? AND day >= ?",
        (chain_id, bucket_start("day", since)),
    )
    return since


def rebuild(w: Writer, chain_id: int, since: int, rollups: Rollups, now: int) -> None:
    """After the unwind's deletes: rebuilds the forgotten buckets from the remaining blocks,
    a chunk of blocks at a time through the same incremental path as new blocks."""
    keep = {span: bucket_start(span, since) for span in INTERVALS}
    numbers = [
        int(r[0])
        for r in w.query(
            "SELECT number FROM blocks WHERE chain_id = ? AND timestamp >= ? ORDER BY number",
            (chain_id, min(keep.values())),
        )
    ]
    prev_ts = _timestamp(w, chain_id, numbers[0] - 1) if numbers else None
    for i in range(0, len(numbers), _REBUILD_BLOCKS):
        part = numbers[i : i + _REBUILD_BLOCKS]
        bundles = load_bundles(w, chain_id, part[0], part[-1])
        deltas = [d for d in rollups(bundles, prev_ts) if d.bucket >= keep[d.span]]
        apply(w, chain_id, deltas, now)
        prev_ts = bundles[-1].block.timestamp
    if not numbers:
        apply(w, chain_id, (), now)


def _same(v: Any) -> Any:
    return v


def _int_or_none(v: Any) -> int | None:
    return None if v is None else int(v)


# Columns in dataclass field order (after chain_id) and how each converts back from SQL.
_BLOCK = ("number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner",
          (int, _same, _same, int, int, int, _int_or_none, int, _same))  # fmt: skip
_TX = ("block_number, tx_index, hash, block_hash, block_timestamp, from_addr, to_addr, value,"
       " nonce, gas_limit, gas_used, gas_price, tx_type, status, selector, created",
       (int, int, _same, _same, int, _same, _same, int, int, int, int, int, int, int, _same,
        _same))  # fmt: skip
_TRANSFER = ("block_number, tx_index, log_index, batch_index, tx_hash, block_timestamp, token,"
             " erc_type, from_addr, to_addr, token_id, value",
             (int, int, int, int, _same, int, _same, _same, _same, _same, _int_or_none,
              int))  # fmt: skip
_CONTRACT = ("address, block_number, tx_index, tx_hash, deployer, factory, creation",
             (_same, int, int, _same, _same, _same, _same))  # fmt: skip


def _rows(
    w: Writer, table: str, spec: tuple[str, tuple[Callable[[Any], Any], ...]], where: str,
    order: str, params: tuple[int, int, int],
) -> list[list[Any]]:  # fmt: skip
    columns, converts = spec
    return [
        [c(v) for c, v in zip(converts, r, strict=True)]
        for r in w.query(
            f"SELECT {columns} FROM {table} WHERE chain_id = ? AND {where} BETWEEN ? AND ?"
            f" ORDER BY {order}",
            params,
        )
    ]


def load_bundles(w: Writer, chain_id: int, low: int, high: int) -> list[BlockBundle]:
    """Blocks low..high with the rows the rollup math reads (block, txs, transfers, contracts)."""
    span = (chain_id, low, high)
    blocks = [BlockRow(chain_id, *r) for r in _rows(w, "blocks", _BLOCK, "number", "number", span)]
    txs: dict[int, list[TxRow]] = {}
    for r in _rows(w, "transactions", _TX, "block_number", "block_number, tx_index", span):
        txs.setdefault(r[0], []).append(TxRow(chain_id, *r))
    transfers: dict[int, list[TransferRow]] = {}
    order = "block_number, log_index, batch_index"
    for r in _rows(w, "transfers", _TRANSFER, "block_number", order, span):
        transfers.setdefault(r[0], []).append(TransferRow(chain_id, *r))
    contracts: dict[int, list[ContractRow]] = {}
    order = "block_number, tx_index, address"
    for r in _rows(w, "contracts", _CONTRACT, "block_number", order, span):
        contracts.setdefault(r[1], []).append(ContractRow(chain_id, *r))
    return [
        BlockBundle(
            block=b,
            txs=tuple(txs.get(b.number, ())),
            transfers=tuple(transfers.get(b.number, ())),
            contracts=tuple(contracts.get(b.number, ())),
        )
        for b in blocks
    ]
