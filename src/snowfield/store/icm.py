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
from snowfield.store.rows import IcmEventRow
from snowfield.store.sql import chunks, in_list

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
    the send is not indexed): its earliest row on those chains."""
    if not chain_ids:
        return Page([], None)
    chains = in_list(chain_ids)
    keyset = ""
    bound: list[Any] = []
    if after is not None:
        keyset = " AND (r.first_seen, r.message_id) < (?, ?)"
        bound = [int(after[0]), str(after[1])]
    # One index range of the address, newest first; a message's later row (its receive,
    # once its send is indexed too) is skipped by a probe of the primary key: a page reads
    # about its own rows however many messages the address has.
    rows = db.query(
        "SELECT r.message_id, r.first_seen FROM icm_address_messages r"
        f" WHERE r.address = ? AND r.chain_id IN {chains}{keyset}"
        " AND NOT EXISTS (SELECT 1 FROM icm_address_messages o"
        " WHERE o.address = r.address AND o.message_id = r.message_id"
        f" AND o.chain_id IN {chains} AND (o.first_seen < r.first_seen"
        " OR (o.first_seen = r.first_seen AND o.chain_id < r.chain_id)))"
        " ORDER BY r.first_seen DESC, r.message_id DESC LIMIT ?",
        [address, *chain_ids, *bound, *chain_ids, limit + 1],
    )
    found = [(str(r[0]), int(r[1])) for r in rows]
    return page_of(found, limit, lambda m: (m[1], m[0]))


def events_of(
    db: Database, message_ids: Iterable[str], chain_ids: Sequence[int]
) -> dict[str, list[IcmEventRow]]:
    """Every event of those messages on `chain_ids`, per message in chain order."""
    found: dict[str, list[IcmEventRow]] = {}
    allowed = set(chain_ids)
    for part in chunks(sorted(set(message_ids))):
        rows = db.query(
            f"SELECT {_COLS} FROM icm_events WHERE message_id IN {in_list(part)}"
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
        f" AND k.address IN {in_list(messengers)})"
        if messengers
        else ""
    )
    rows = db.query(
        "SELECT chain_id FROM chains WHERE chain_id IS NOT NULL AND (EXISTS (SELECT 1 FROM"
        f" icm_events e WHERE e.chain_id = chains.chain_id){deployed})",
        list(messengers),
    )
    return {int(r[0]) for r in rows}


def tx_events(db: Database, chain_id: int, block_number: int, tx_index: int) -> list[IcmEventRow]:
    """The messenger events one transaction emitted, in log order (a transaction's complete
    view names the message it sent or received)."""
    rows = db.query(
        f"SELECT {_COLS} FROM icm_events WHERE chain_id = ? AND block_number = ? AND tx_index = ?"
        " ORDER BY log_index",
        (chain_id, block_number, tx_index),
    )
    return [_event(r) for r in rows]
