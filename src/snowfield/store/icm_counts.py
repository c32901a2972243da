"""The ICM message counts table (store/icm_rollups.py keeps and reads it) and how events map to
its rows: shared with the schema's upgrade that fills it from a store's events."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from snowfield.store.buckets import INTERVALS, bucket_start
from snowfield.store.sql import in_list

TABLE = """CREATE TABLE IF NOT EXISTS icm_rollups (
    chain_id BIGINT NOT NULL,
    span TEXT NOT NULL,
    bucket BIGINT NOT NULL,
    src TEXT NOT NULL,
    dest TEXT NOT NULL,
    kind TEXT NOT NULL,
    messages BIGINT NOT NULL,
    PRIMARY KEY (span, bucket, chain_id, src, dest, kind))"""
KINDS = ("send", "receive")
# `src` of a send is its chain's blockchain id, read from `chains` when counted: a chain's row
# may name its blockchain id only after its first blocks were written.
_SEND_SOURCE = ""
Key = tuple[int, str, int, str, str, str]  # chain, span, bucket, src, dest, kind


def keys(chain_id: int, ts: int, kind: str, peer: str | None, dest: str | None) -> list[Key]:
    src = _SEND_SOURCE if kind == "send" else peer or ""
    return [(chain_id, s, bucket_start(s, ts), src, dest or "", kind) for s in INTERVALS]


def apply(w: Any, counts: Counter[Key], sign: int) -> None:
    w.executemany(
        "INSERT INTO icm_rollups (chain_id, span, bucket, src, dest, kind, messages)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (span, bucket, chain_id, src, dest, kind)"
        " DO UPDATE SET messages = icm_rollups.messages + excluded.messages",
        [(*key, sign * n) for key, n in sorted(counts.items())],
    )
    if sign < 0:
        w.execute("DELETE FROM icm_rollups WHERE messages <= 0")


def counted(rows: Iterable[tuple[Any, ...]]) -> Counter[Key]:
    counts: Counter[Key] = Counter()
    for chain_id, ts, kind, peer, dest in rows:
        counts.update(keys(int(chain_id), int(ts), str(kind), peer, dest))
    return counts


EVENTS = (
    "SELECT chain_id, block_timestamp, kind, peer_chain, destination_chain FROM icm_events"
    f" WHERE kind IN {in_list(KINDS)}"
)


def rebuild(w: Any) -> None:
    """Counts every stored event again (an upgrade; a store's whole history at once)."""
    w.execute("DELETE FROM icm_rollups")
    counts = counted(w.query(EVENTS, KINDS))
    if counts:
        apply(w, counts, 1)
