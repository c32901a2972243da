"""The validators list's entries as stored documents (schema 25, issue 30 "Fast"): one row per
validation with its entry (store/validator_entries.py) and the chain times it holds at, so
that a page is one index range of p_stakers joined to its documents as text.

Why: a page was rendered per request from its stakers, their node's delegations, the paid
rewards and the node's observation (five queries and a render for each entry): 11-19% of a
Starlette hello world serving the same bytes (bench/primary_validators.py, 7 runs). Measured,
same machine and sessions (2 shared, loaded cores: the hello world itself spread 2.4k-15k req/s):
- rendered per request (before): 11-19% (7 runs), ~1.0 ms of handler a page in-process;
- these documents, a page one index range joined as text: 34-57% (10 runs), ~0.10 ms
  in-process, of which the page query ~30 us (a CAST to BLOB made it ~40);
- with the answers kept by store generation on top (api/primary/validator_pages.py):
  33-73% (11 runs, median 53%; one more at 107%), ~0.065 ms in-process, the framework's own
  floor (a handler answering a constant page: 0.062-0.075 ms);
- a page cache alone (arguments to answer, never invalidated: the upper bound of a cache):
  59% and 84%. Alone it would render every page per request again after each sync (a sync
  moves the chain time every few seconds); the documents make that miss one query.

An entry depends on the chain time only at its start, its end and its delegations' (its
window); on the rows of its staking tx, its node's delegations and its paid rewards; and, while
active, on the node's observation and the current stake. The writer keeps them in the
transactions that change those:
- primary.write_blocks / write_genesis: every validation of each node the blocks touch (a
  staker added, ended or removed, a reward paid, a potential reward set), then the entries
  whose window the (possibly moved) chain time leaves;
- primary.record_chain_time: the entries whose window the new chain time leaves;
- validator_state.record (an observation) marks the active entries to render again
  (`valid_until` 0, plain SQL: that module sits below this one); the observer then calls
  `refresh`.
Each of those also moves p_validator_generation, by which the data service keeps answers. The
cost: bench/primary_validators.py's store (6,000 staking txs, nothing else) is written in
~2.9 s instead of ~1.8 s.
A reader that meets an entry outside its window (or none) renders the page from the rows, so an
answer never depends on whether the writer caught up. The P-Chain index is never unwound
(store/primary_schema.py): no rows go, so no document outlives its staker."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import orjson

from snowfield.store import sql
from snowfield.store.database import Database
from snowfield.store.primary_queries import Reads, chain_time
from snowfield.store.validator_entries import entries
from snowfield.store.validator_queries import StakerFilter, listing, measured

VALIDATION_KINDS = ("VALIDATOR", "SUBNET_VALIDATOR")  # p_stakers.kind other than DELEGATOR
BATCH = 2_000  # entries rendered again by one refresh at most (an upgraded store: all of them)
_UPSERT = (
    "INSERT INTO p_validator_documents (pchain, tx_id, valid_from, valid_until, status,"
    " document) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, tx_id) DO UPDATE SET"
    " valid_from = excluded.valid_from, valid_until = excluded.valid_until,"
    " status = excluded.status, document = excluded.document"
)


class _Writes(Reads, Protocol):
    def execute(self, sql: str, params: Any = ...) -> Any: ...
    def executemany(self, sql: str, rows: Any) -> None: ...


def render(w: _Writes, pchain: str, tx_ids: Iterable[str]) -> None:
    """(Re)renders the entries of these validations (other staking txs are skipped) at the
    chain time as the transaction sees it."""
    for chunk in sql.chunks(sorted(set(tx_ids))):
        f = StakerFilter(VALIDATION_KINDS, tx_ids=tuple(chunk))
        m = measured(w, pchain, f, desc=False, after=None, limit=None)
        w.executemany(
            _UPSERT,
            [
                (pchain, e.view.tx_id, *e.window, e.view.status, orjson.dumps(e.document).decode())
                for e in entries(m)
            ],
        )


def render_nodes(w: _Writes, pchain: str, node_ids: Iterable[str]) -> None:
    """(Re)renders every validation of these nodes (on any subnet)."""
    ids: list[str] = []
    for chunk in sql.chunks(sorted(set(node_ids))):
        ids += [
            str(r[0])
            for r in w.query(
                "SELECT tx_id FROM p_stakers WHERE pchain = ? AND kind <> 'DELEGATOR'"
                f" AND node_id IN {sql.in_list(chunk)}",
                [pchain, *chunk],
            )
        ]
    render(w, pchain, ids)


def nodes_of(w: Reads, pchain: str, tx_ids: Iterable[str]) -> set[str]:
    """The nodes these staking txs stake on."""
    out: set[str] = set()
    for chunk in sql.chunks(sorted(set(tx_ids))):
        out.update(
            str(r[0])
            for r in w.query(
                f"SELECT node_id FROM p_stakers WHERE pchain = ? AND tx_id IN {sql.in_list(chunk)}",
                [pchain, *chunk],
            )
        )
    return out


def refresh(w: _Writes, pchain: str, limit: int = BATCH) -> int:
    """Renders again up to `limit` entries whose window the chain time (as the transaction
    sees it) is outside of, or that are marked to render; how many."""
    now = chain_time(w, pchain) or 0
    ids = {
        str(r[0])
        for text in (
            "SELECT tx_id FROM p_validator_documents WHERE pchain = ? AND valid_until <= ?",
            "SELECT tx_id FROM p_validator_documents WHERE pchain = ? AND valid_from > ?",
        )
        for r in w.query(f"{text} LIMIT {int(limit)}", (pchain, now))
    }
    render(w, pchain, ids)
    return len(ids)


def refresh_store(db: Database, pchain: str) -> int:
    """`refresh` until none is left, a batch a transaction (after an observation: every
    active validation, more than a batch on mainnet with its L1s' validators); how many."""
    total = 0
    for _ in range(10_000):  # bounded: each round renders a batch or ends the loop
        with db.transaction() as w:
            done = refresh(w, pchain)
        total += done
        if done < BATCH:
            break
    return total


def generation(db: Database, pchain: str) -> int:
    """The store's generation of the validators list's answers (0 before any change)."""
    rows = db.query("SELECT generation FROM p_validator_generation WHERE pchain = ?", (pchain,))
    return int(rows[0][0]) if rows else 0


def page(
    db: Database,
    pchain: str,
    f: StakerFilter,
    *,
    desc: bool,
    after: tuple[int, str] | None,
    limit: int,
) -> list[tuple[int, str, str]] | None:
    """validator_queries.stakers' listing (same filter, order and keys) as (start time, tx id,
    entry JSON text); None when an entry of the first `limit - 1` is missing or does not hold at
    the chain time (render those from the rows). Fetch limit + 1 for a page."""
    now = chain_time(db, pchain) or 0
    tail, params = listing(f, now, desc=desc, after=after, limit=limit)
    # The status expression names the ending tx; joined only when a status is asked.
    ended = ""
    if f.statuses:
        ended = " LEFT JOIN p_txs e ON e.pchain = s.pchain AND e.tx_id = s.ended_tx"
    rows = db.query(
        "SELECT s.start_time, s.tx_id, d.valid_from, d.valid_until, d.document FROM p_stakers s"
        f"{ended} LEFT JOIN p_validator_documents d ON d.pchain = s.pchain"
        f" AND d.tx_id = s.tx_id{tail}",
        [pchain, *params],
    )
    shown = rows[: limit - 1]  # the last row only tells that more exist
    if any(r[2] is None or not r[2] <= now < r[3] for r in shown):
        return None
    return [(int(r[0]), str(r[1]), r[4]) for r in rows]


def joined(documents: Sequence[str]) -> orjson.Fragment:
    """A JSON array of stored entries, for orjson to embed verbatim. Joined as text: SQLite
    hands text out without the copy a CAST to BLOB makes (a third of the page query's time)."""
    return orjson.Fragment("[" + ",".join(documents) + "]")
