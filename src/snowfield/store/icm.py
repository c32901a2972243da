"""Reads of the ICM messenger events (operation 16, and the `teleporter` feature of chains).

A message's events live on two chains (its send on the source, its receive, execution and
failure on the destination, its receipt and fee changes back on the source); they are joined
by message id when read, so either side may be indexed first, or alone."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page, page_of
from snowfield.store.queries import _chunks, _in
from snowfield.store.rows import IcmEventRow

_COLS = (
    "chain_id, block_number, tx_index, log_index, tx_hash, block_timestamp, gas_spent, contract,"
    " kind, message_id, peer_chain, nonce, origin, destination_chain, destination, payload,"
    " receipts, fee_token, fee_amount, deliverer, reward_redeemer"
)


def _event(r: tuple[Any, ...]) -> IcmEventRow:
    return IcmEventRow(
        chain_id=r[0],
        block_number=r[1],
        tx_index=r[2],
        log_index=r[3],
        tx_hash=r[4],
        block_timestamp=r[5],
        gas_spent=r[6],
        contract=r[7],
        kind=r[8],
        message_id=r[9],
        peer_chain=r[10],
        nonce=None if r[11] is None else int(r[11]),
        origin=r[12],
        destination_chain=r[13],
        destination=r[14],
        payload=None if r[15] is None else bytes.fromhex(r[15][2:]),
        receipts=tuple((int(n), a) for n, a in orjson.loads(r[16] or "[]")),
        fee_token=r[17],
        fee_amount=None if r[18] is None else int(r[18]),
        deliverer=r[19],
        reward_redeemer=r[20],
    )


def messages_of(
    db: Database,
    address: str,
    chain_ids: Sequence[int],
    *,
    after: Key | None = None,
    limit: int = 10,
) -> Page[tuple[str, int]]:
    """(message id, time) of the messages `address` sent or is the destination of, seen on
    one of `chain_ids`, newest first; a message's time is its send's (its receive's when
    the send is not indexed)."""
    if not chain_ids:
        return Page([], None)
    chains = _in(chain_ids)
    params: list[Any] = [address, *chain_ids, address, *chain_ids]
    having = ""
    if after is not None:
        ts, message_id = int(after[0]), str(after[1])
        having = " HAVING MIN(ts) < ? OR (MIN(ts) = ? AND message_id < ?)"
        params += [ts, ts, message_id]
    # One covering index range per side (an OR of the two let SQLite's planner walk every
    # event of the chains instead): a page costs the address's events, not the store's.
    side = (
        "SELECT message_id, block_timestamp AS ts FROM icm_events"
        " WHERE {} = ? AND kind IN ('send', 'receive') AND chain_id IN " + chains
    )
    rows = db.query(
        "SELECT message_id, MIN(ts) AS first FROM ("
        f"{side.format('origin')} UNION ALL {side.format('destination')}"
        f") sides GROUP BY message_id{having} ORDER BY first DESC, message_id DESC LIMIT ?",
        [*params, limit + 1],
    )
    found = [(str(r[0]), int(r[1])) for r in rows]
    return page_of(found, limit, lambda m: (m[1], m[0]))


def events_of(
    db: Database, message_ids: Iterable[str], chain_ids: Sequence[int]
) -> dict[str, list[IcmEventRow]]:
    """Every event of those messages on `chain_ids`, per message in chain order."""
    found: dict[str, list[IcmEventRow]] = {}
    allowed = set(chain_ids)
    for part in _chunks(sorted(set(message_ids))):
        rows = db.query(
            f"SELECT {_COLS} FROM icm_events WHERE message_id IN {_in(part)}"
            " ORDER BY block_timestamp, chain_id, block_number, log_index",
            list(part),
        )
        for event in map(_event, rows):
            if event.chain_id in allowed:
                found.setdefault(event.message_id, []).append(event)
    return found


def messenger_chains(db: Database, messengers: Sequence[str]) -> set[int]:
    """Indexed chains where one of `messengers` was deployed, or a messenger emitted an event
    (a messenger in the genesis state has no deployment to index). One probe of each key per
    chain: operation 3 asks on every call."""
    deployed = (
        " OR EXISTS (SELECT 1 FROM contracts k WHERE k.chain_id = chains.chain_id"
        f" AND k.address IN {_in(messengers)})"
        if messengers
        else ""
    )
    rows = db.query(
        "SELECT chain_id FROM chains WHERE chain_id IS NOT NULL AND (EXISTS (SELECT 1 FROM"
        f" icm_events e WHERE e.chain_id = chains.chain_id){deployed})",
        list(messengers),
    )
    return {int(r[0]) for r in rows}
