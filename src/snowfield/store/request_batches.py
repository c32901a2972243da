"""The request log's stored form (schema 28): the requests of one API key that arrived in one
second, as written by one flush, are one row of `api_request_batches`, their fields packed
as one JSON array of arrays. store/usage_log.py reads them back for the usage operations.

Why packed (bench/api.py part 3, 2M store, one URL, quiet machine): with a row per request
(schemas 24-27: nine columns, clustered by key, time and sequence), the log cost 11-16% of
operation 5's throughput, its flush 6.4-9.9 us of the event loop a request; binding and
inserting each row's values was most of it. A probe writing a flush as one blob (the raw
tuples through orjson) cost 3.7-5.6 us a request. Here a request is eight plain values (no
header bytes left: its shared fields are its context's id), so one orjson call packs a
batch, and the store writes one row per key and second.

A request's packed array: [arrival ms within the second, sequence number less the batch's,
context id, path, status, chain id or null, latency µs, credits] (an integer: the flush
converts it with int(), where round() to the ms's three decimals cost it a tenth of its time;
µs / 1000 reads back as round() gave it). A batch's `seq` is its
first request's sequence number, so (key, second, seq) is as unique as the rows' (key, ms,
seq) were; the readers sort a second's requests by (ms, seq) themselves, because
two flushes (or two processes) may each write part of one second."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import orjson

from snowfield.store.ops_schema import has_table

_INSERT = (
    "INSERT INTO api_request_batches (key_id, second, seq, requests) VALUES (?, ?, ?, ?)"
    # A batch key taken twice (two processes drew the same tag) loses that batch, not the
    # flush: a failed flush would wait for the next one, and fail again.
    " ON CONFLICT DO NOTHING"
)
# A stored request as the readers get it back: (at_ms, seq, context, path, status, chain_id,
# latency_ms, credits), StoredRequest's fields after the key.
Unpacked = tuple[int, int, int, str, int, str | None, float, int]


def batch_row(
    key_id: str, second: int, seq: int, members: list[tuple[Any, ...]]
) -> tuple[str, int, int, bytes]:
    """A stored batch of `members`, each (ms within `second`, sequence number less `seq`,
    context, path, status, chain_id, latency in µs, credits)."""
    return key_id, second, seq, orjson.dumps(members)


def pack(rows: Iterable[Sequence[Any]]) -> list[tuple[str, int, int, bytes]]:
    """Rows in StoredRequest's order (key_id, at_ms, seq, context, path, status, chain_id,
    latency_ms, credits) as batch rows, one per key and second, in the order their first
    rows came. The request log's flush groups its pending requests itself
    (api/operations/request_log.py `_pack`): fed through here as rows, its pass cost 0.76
    against 0.61 us a request in process."""
    groups: dict[tuple[str, int], tuple[int, list[tuple[Any, ...]]]] = {}
    for key_id, at_ms, seq, context, path, status, chain_id, latency_ms, credits in rows:
        second = at_ms // 1000
        group = groups.get((key_id, second))
        if group is None:
            group = groups[(key_id, second)] = (seq, [])
        group[1].append(
            (at_ms - second * 1000, seq - group[0], context, path, status, chain_id,
             round(latency_ms * 1000), credits)
        )  # fmt: skip
    return [batch_row(k, second, seq, m) for (k, second), (seq, m) in groups.items()]


def insert(w: Any, batches: Sequence[tuple[str, int, int, bytes]]) -> None:
    """Batch rows (from `pack`) in `w`'s open transaction."""
    for batch in batches:
        w.execute(_INSERT, batch)


def unpack(second: int, seq: int, requests: bytes | memoryview) -> Iterator[Unpacked]:
    """The requests of one stored batch, in the order written."""
    at = second * 1000
    for ms, offset, context, path, status, chain_id, micros, credits in orjson.loads(
        bytes(requests)
    ):
        yield at + ms, seq + offset, context, path, status, chain_id, micros / 1000, credits


def pack_request_log(w: Any) -> None:
    """Schema 28: the rows of api_request_log (one per request, schemas 24-27) packed into
    api_request_batches, keeping their sequence numbers (so their log ids), then the table
    goes. Read in key order, 10,000 rows a step: a key's second split across two steps
    becomes two batches, which the readers merge."""
    if not has_table(w, "api_request_log"):
        return
    columns = "key_id, at_ms, seq, context, path, status, chain_id, latency_ms, credits"
    after: tuple[Any, ...] = ("", -1, -1)  # before every row: '' is the least key, times >= 0
    while True:
        rows = w.query(
            f"SELECT {columns} FROM api_request_log WHERE (key_id, at_ms, seq) > (?, ?, ?)"
            " ORDER BY key_id, at_ms, seq LIMIT 10000",
            after,
        )
        if not rows:
            break
        normal = [(r[0], int(r[1]), int(r[2]), int(r[3]), *r[4:6], r[6], float(r[7]), int(r[8]))
                  for r in rows]  # fmt: skip
        insert(w, pack(normal))
        after = tuple(rows[-1][:3])
    w.execute("DROP TABLE api_request_log")
