"""Every indexed ICM message, newest first, with the filters of GET /v1/icm/messages.

A message is listed once, at its earliest send or receive row on the chains a request may
see (the same time operation 16 gives it): that row names the whole message (its source,
destination, sender and recipient), so the filters are conditions on it alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.schema import ICM_NAMING_KINDS
from snowfield.store.sql import in_list

_NAMING = "(" + ", ".join(f"'{kind}'" for kind in ICM_NAMING_KINDS) + ")"


@dataclass(frozen=True, slots=True)
class MessageFilter:
    """Conditions on a message; a chain is named by its blockchain id (cb58). `source_chain`:
    the EVM chain id of the source when it is indexed here (its sends are rows of it)."""

    source: str | None = None
    source_chain: int | None = None
    destination: str | None = None
    either: str | None = None
    either_chain: int | None = None
    origin: str | None = None
    recipient: str | None = None


def _source(alias: str, blockchain_id: str, chain_id: int | None) -> tuple[str, list[Any]]:
    """The row's message comes from `blockchain_id`: a send on that chain, or a receive from
    it."""
    received = f"({alias}.kind = 'receive' AND {alias}.peer_chain = ?)"
    if chain_id is None:
        return received, [blockchain_id]
    return f"({alias}.kind = 'send' AND {alias}.chain_id = ? OR {received})", [
        chain_id,
        blockchain_id,
    ]


def _conditions(f: MessageFilter) -> tuple[str, list[Any]]:
    parts: list[str] = []
    bound: list[Any] = []
    if f.source is not None:
        sql, values = _source("r", f.source, f.source_chain)
        parts.append(sql)
        bound += values
    if f.destination is not None:
        parts.append("r.destination_chain = ?")
        bound.append(f.destination)
    if f.either is not None:
        sql, values = _source("r", f.either, f.either_chain)
        parts.append(f"({sql} OR r.destination_chain = ?)")
        bound += [*values, f.either]
    if f.origin is not None:
        parts.append("r.origin = ?")
        bound.append(f.origin)
    if f.recipient is not None:
        parts.append("r.destination = ?")
        bound.append(f.recipient)
    return "".join(f" AND {p}" for p in parts), bound


def list_messages(
    db: Database,
    chain_ids: Sequence[int],
    where: MessageFilter,
    *,
    after: Key | None = None,
    limit: int = 10,
) -> Page[tuple[str, int]]:
    """(message id, time) of the messages seen on `chain_ids` that match, newest first."""
    if not chain_ids:
        return Page([], None)
    chains = in_list(chain_ids)
    conditions, bound = _conditions(where)
    keyset = ""
    if after is not None:
        keyset = " AND (r.block_timestamp < ? OR (r.block_timestamp = ? AND r.message_id < ?))"
        bound += [int(after[0]), int(after[0]), str(after[1])]
    # Invariant: the earliest naming row of a message (ties: lowest chain, then position)
    # represents it; the NOT EXISTS probe uses the message id index.
    rows = db.query(
        "SELECT r.message_id, r.block_timestamp FROM icm_events r"
        f" WHERE r.kind IN {_NAMING} AND r.chain_id IN {chains}{conditions}{keyset}"
        " AND NOT EXISTS (SELECT 1 FROM icm_events o WHERE o.message_id = r.message_id"
        f" AND o.kind IN {_NAMING} AND o.chain_id IN {chains}"
        " AND (o.block_timestamp < r.block_timestamp OR (o.block_timestamp = r.block_timestamp"
        " AND (o.chain_id < r.chain_id OR (o.chain_id = r.chain_id"
        " AND (o.block_number < r.block_number OR (o.block_number = r.block_number"
        " AND o.log_index < r.log_index)))))))"
        " ORDER BY r.block_timestamp DESC, r.message_id DESC LIMIT ?",
        [*chain_ids, *bound, *chain_ids, limit + 1],
    )
    found = [(str(r[0]), int(r[1])) for r in rows]
    return page_of(found, limit, lambda m: (m[1], m[0]))
