"""Writes of the indexer: a batch of blocks and its checkpoint in one transaction, chain
configuration, and unwinding to a height. Upserts by natural key make every write idempotent,
so replaying a batch after a crash gives exactly the same rows."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import orjson

from snowfield.store import (
    backfill_ranges,
    block_writes,
    bulk,
    icm_rollups,
    sql,
    token_balances,
    token_queries,
    webhook_outbox,
)
from snowfield.store import rollups as rollup_tables
from snowfield.store.database import Database, Writer
from snowfield.store.documents import ERC_TYPES
from snowfield.store.read_model import (
    batch_documents,
    forget_naming,
    forget_naming_after,
    forget_nfts_after_first,
)
from snowfield.store.rollups import Rollups
from snowfield.store.rows import BalanceRow, BlockBundle, ChainRow, NftRow, TokenRow, TransferRow
from snowfield.store.schema import CHAIN_COLUMNS, ICM_ADDRESS_ROWS, ICM_NAMING_KINDS

# Table -> column holding the block height, for unwinds.
BLOCK_COLUMNS: dict[str, str] = {
    "blocks": "number",
    "transactions": "block_number",
    "transfers": "block_number",
    "internal_txs": "block_number",
    "address_txs": "block_number",
    "contracts": "block_number",
    "balances": "block_number",
    "logs": "block_number",
    "tx_inputs": "block_number",
    "tokens": "first_block",
    "nfts": "first_block",
    "icm_events": "block_number",
}


def derived_blockchain_id(chain_id: int) -> str:
    """The key of an EVM chain whose node names no blockchain id (anvil, geth): deterministic,
    and never a cb58 id, so it cannot collide with a real one."""
    return f"evm-{chain_id}"


def upsert_chain(db: Database, chain: ChainRow) -> None:
    """Records (or updates) an indexed chain's configuration, keyed by its blockchain id.

    One EVM chain id is one chain here: a row of the same EVM chain under another key (say, its
    derived id, before its node named the real one) is replaced."""
    key = chain.blockchain_id or derived_blockchain_id(chain.chain_id)
    values = (
        key,
        int(chain.blockchain_id is None),
        chain.chain_id,
        chain.name,
        chain.network,
        chain.rpc_url,
        chain.ws_url,
        chain.subnet_id,
        chain.vm_id,
        chain.description,
        chain.explorer_url,
        chain.token_name,
        chain.token_symbol,
        chain.token_decimals,
        chain.token_logo,
        chain.chain_logo,
        ",".join(chain.features),
        int(chain.private),
        chain.multicall,
    )
    columns = f"blockchain_id, derived_id, chain_id, {CHAIN_COLUMNS}"
    updates = ", ".join(f"{c.strip()} = excluded.{c.strip()}" for c in columns.split(",")[1:])
    with db.transaction() as w:
        w.execute(
            "DELETE FROM chains WHERE chain_id = ? AND blockchain_id <> ?", (chain.chain_id, key)
        )
        w.execute(
            f"INSERT INTO chains ({columns}) VALUES ({', '.join('?' * len(values))})"
            f" ON CONFLICT (blockchain_id) DO UPDATE SET {updates}",
            values,
        )


def checkpoint(db: Database, chain_id: int) -> tuple[int, str] | None:
    """The height and hash of the last fully written block, or None before the first."""
    row = db.query_one("SELECT height, hash FROM checkpoints WHERE chain_id = ?", (chain_id,))
    return None if row is None else (int(row[0]), str(row[1]))


def block_hash(db: Database, chain_id: int, number: int) -> str | None:
    row = db.query_one(
        "SELECT hash FROM blocks WHERE chain_id = ? AND number = ?", (chain_id, number)
    )
    return None if row is None else str(row[0])


def known_tokens(
    db: Database, chain_id: int, addresses: Iterable[str], seen: Mapping[str, int] | None = None
) -> set[str]:
    """Which of these addresses already have a `tokens` row (so need no detection calls); with
    `seen` (address -> the block it is seen at), only rows first seen no later than that.
    A row first seen later exists only in a parallel backfill (another worker's later range
    wrote it): detected here again, it moves back to this first sighting."""
    found = token_queries.tokens(db, chain_id, addresses)
    return {a for a, t in found.items() if seen is None or t.first_block <= seen[a]}


def known_nfts(
    db: Database,
    chain_id: int,
    keys: Iterable[tuple[str, int]],
    seen: Mapping[tuple[str, int], int] | None = None,
) -> set[tuple[str, int]]:
    """Which (token, token id) pairs already have an `nfts` row (first seen no later than
    `seen` says, as known_tokens)."""
    found = token_queries.nfts(db, chain_id, keys)
    return {k for k, n in found.items() if seen is None or n.first_block <= seen[k]}


def write_batch(
    db: Database,
    chain_id: int,
    bundles: Sequence[BlockBundle],
    tokens: Sequence[TokenRow] = (),
    nfts: Sequence[NftRow] = (),
    *,
    rollups: Rollups | None = None,
    clock: Callable[[], float] = time.time,
    range_start: int | None = None,
) -> None:
    """Writes consecutive blocks and moves the checkpoint to the last, atomically; with
    `rollups` (the indexer's rollup math) the metrics rollups move in the same transaction.
    With `range_start`, the blocks belong to that claimed range of a parallel backfill
    (store/backfill_ranges.py): the range's progress moves, and the checkpoint only as far as
    every range below is written."""
    if not bundles:
        return
    documents = batch_documents(db, chain_id, bundles, tokens, nfts)  # reads only
    first = bundles[0].block.number
    named = {t.address for t in tokens if t.erc_type in ERC_TYPES}
    new_tokens = sorted(named - known_tokens(db, chain_id, named, dict.fromkeys(named, first)))
    with db.transaction() as w:
        if rollups is not None:
            rollup_tables.add_batch(w, chain_id, bundles, rollups, int(clock()))
        icm_rollups.add_batch(w, chain_id, bundles)  # before the checkpoint moves
        block_writes.insert_rows(w, bundles, documents)
        token_balances.insert(w, [t for bundle in bundles for t in bundle.token_balances])
        _insert_icm(w, bundles)
        _index_icm_addresses(w, bundles)
        _insert_balances(w, [b for bundle in bundles for b in bundle.balances])
        _insert_tokens(w, tokens)
        forget_naming(w, chain_id, new_tokens, first)
        _insert_nfts(w, nfts)
        _move_owners(w, chain_id, [t for b in bundles for t in b.transfers])
        # Invariant: webhook messages commit with the rows they report (store/webhook_outbox.py).
        webhook_outbox.enqueue(w, chain_id, bundles, int(clock() * 1000))
        last = bundles[-1].block
        if range_start is not None:
            # Other workers may have rendered later blocks naming these tokens before their
            # facts were stored: those documents render from the rows again.
            forget_naming_after(w, chain_id, new_tokens, last.number)
            forget_nfts_after_first(w, chain_id, {(n.token, n.token_id) for n in nfts})
            backfill_ranges.advance(w, chain_id, range_start, last.number)
            return
        w.execute(
            "INSERT INTO checkpoints (chain_id, height, hash) VALUES (?, ?, ?)"
            " ON CONFLICT (chain_id) DO UPDATE SET height = excluded.height, hash = excluded.hash",
            (chain_id, last.number, last.hash),
        )


def _insert_icm(w: Writer, bundles: Sequence[BlockBundle]) -> None:
    w.executemany(
        "INSERT INTO icm_events (chain_id, block_number, tx_index, log_index, tx_hash,"
        " block_timestamp, gas_spent, contract, kind, message_id, peer_chain, nonce, origin,"
        " destination_chain, destination, payload, receipts, fee_token, fee_amount, deliverer,"
        " reward_redeemer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (chain_id, block_number, log_index) DO NOTHING",
        [
            (
                e.chain_id,
                e.block_number,
                e.tx_index,
                e.log_index,
                e.tx_hash,
                e.block_timestamp,
                e.gas_spent,
                e.contract,
                e.kind,
                e.message_id,
                e.peer_chain,
                None if e.nonce is None else str(e.nonce),
                e.origin,
                e.destination_chain,
                e.destination,
                None if e.payload is None else "0x" + e.payload.hex(),
                orjson.dumps([[str(n), a] for n, a in e.receipts]).decode(),
                e.fee_token,
                None if e.fee_amount is None else str(e.fee_amount),
                e.deliverer,
                e.reward_redeemer,
            )
            for bundle in bundles
            for e in bundle.icm
        ],
    )


def _index_icm_addresses(w: Writer, bundles: Sequence[BlockBundle]) -> None:
    """Operation 16's rows (schema.ICM_ADDRESS_ROWS) for the batch's send and receive events:
    each (address, message, chain) keeps its earliest time."""
    earliest: dict[tuple[str, str, int], int] = {}
    for bundle in bundles:
        for e in bundle.icm:
            if e.kind not in ICM_NAMING_KINDS:
                continue
            for address in {e.origin, e.destination} - {None}:
                key = (str(address), e.message_id, e.chain_id)
                earliest[key] = min(earliest.get(key, e.block_timestamp), e.block_timestamp)
    w.executemany(
        "INSERT INTO icm_address_messages (address, message_id, chain_id, first_seen)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (address, message_id, chain_id) DO UPDATE SET"
        " first_seen = CASE WHEN excluded.first_seen < icm_address_messages.first_seen"
        " THEN excluded.first_seen ELSE icm_address_messages.first_seen END",
        [(*key, ts) for key, ts in sorted(earliest.items())],
    )


def _reindex_icm_addresses(w: Writer, chain_id: int, message_ids: Sequence[str]) -> None:
    """Rebuilds the chain's rows of those messages from the events that remain (an unwind)."""
    for part in sql.chunks(sorted(message_ids)):
        marks = sql.in_list(part)
        w.execute(
            f"DELETE FROM icm_address_messages WHERE chain_id = ? AND message_id IN {marks}",
            (chain_id, *part),
        )
        w.execute(
            ICM_ADDRESS_ROWS.format(where=f" AND chain_id = ? AND message_id IN {marks}"),
            (chain_id, *part, chain_id, *part),
        )


def _insert_balances(w: Writer, balances: Sequence[BalanceRow]) -> None:
    bulk.insert(
        w,
        "balances",
        "chain_id, address, block_number, balance",
        [(b.chain_id, b.address, b.block_number, str(b.balance)) for b in balances],
        key="chain_id, address, block_number",
    )


def _insert_tokens(w: Writer, tokens: Sequence[TokenRow]) -> None:
    # A row first seen later than this one (a parallel backfill's later range) takes this one's
    # facts: the first sighting decides, as it does for one process reading in order.
    w.executemany(
        "INSERT INTO tokens (chain_id, address, erc_type, name, symbol, decimals, first_block)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chain_id, address) DO UPDATE SET"
        " erc_type = excluded.erc_type, name = excluded.name, symbol = excluded.symbol,"
        " decimals = excluded.decimals, first_block = excluded.first_block"
        " WHERE excluded.first_block < tokens.first_block",
        [
            (t.chain_id, t.address, t.erc_type, t.name, t.symbol, t.decimals, t.first_block)
            for t in tokens
        ],
    )


def _insert_nfts(w: Writer, nfts: Sequence[NftRow]) -> None:
    w.executemany(
        "INSERT INTO nfts (chain_id, token, token_id, erc_type, token_uri, index_status, metadata,"
        " metadata_updated, first_block) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (chain_id, token, token_id) DO UPDATE SET erc_type = excluded.erc_type,"
        " token_uri = excluded.token_uri, index_status = excluded.index_status,"
        " metadata = excluded.metadata, metadata_updated = excluded.metadata_updated,"
        " first_block = excluded.first_block WHERE excluded.first_block < nfts.first_block",
        [
            (
                n.chain_id,
                n.token,
                str(n.token_id),
                n.erc_type,
                n.token_uri,
                n.index_status,
                orjson.dumps(n.metadata).decode(),
                n.metadata_updated,
                n.first_block,
            )
            for n in nfts
        ],
    )


def _move_owners(w: Writer, chain_id: int, transfers: Sequence[TransferRow]) -> None:
    """ERC-721 owner = receiver of the token id's latest transfer (by block, then log)."""
    latest: dict[tuple[str, int], TransferRow] = {}
    for t in transfers:
        if t.erc_type == "ERC-721" and t.token_id is not None:
            latest[(t.token, t.token_id)] = t  # transfers arrive in chain order
    w.executemany(
        "UPDATE nfts SET owner = ?, owner_block = ?, owner_log = ?"
        " WHERE chain_id = ? AND token = ? AND token_id = ?"
        " AND (owner_block IS NULL OR owner_block < ? OR (owner_block = ? AND owner_log <= ?))",
        [
            (
                t.to_addr,
                t.block_number,
                t.log_index,
                chain_id,
                t.token,
                str(t.token_id),
                t.block_number,
                t.block_number,
                t.log_index,
            )
            for t in latest.values()
        ],
    )


def unwind(
    db: Database,
    chain_id: int,
    height: int,
    *,
    rollups: Rollups | None = None,
    clock: Callable[[], float] = time.time,
) -> None:
    """Removes every row of blocks >= height (a reorg) and moves the checkpoint below it.
    Rollup buckets from the first removed block's on are dropped; with `rollups` they are
    rebuilt from the blocks that remain, in the same transaction."""
    with db.transaction() as w:
        since = rollup_tables.forget_from(w, chain_id, height)
        # Earlier documents that name a token about to be removed were rendered with its facts.
        leaving = w.query(
            "SELECT address FROM tokens WHERE chain_id = ? AND first_block >= ?", (chain_id, height)
        )
        forget_naming(w, chain_id, [r[0] for r in leaving], height)
        unwound_messages = w.query(
            "SELECT DISTINCT message_id FROM icm_events WHERE chain_id = ? AND block_number >= ?"
            f" AND kind IN {sql.in_list(ICM_NAMING_KINDS)}",
            (chain_id, height, *ICM_NAMING_KINDS),
        )
        token_balances.unwind(w, chain_id, height)  # reads the transfers about to go
        backfill_ranges.unwind(w, chain_id, height)
        icm_rollups.unwind(w, chain_id, height)  # reads the events about to go
        for table, column in BLOCK_COLUMNS.items():
            w.execute(
                f"DELETE FROM {table} WHERE chain_id = ? AND {column} >= ?", (chain_id, height)
            )
        _reindex_icm_addresses(w, chain_id, [r[0] for r in unwound_messages])
        webhook_outbox.unwind(w, chain_id, height, int(clock() * 1000))
        _recompute_owners(w, chain_id, height)
        below = w.query(
            "SELECT number, hash FROM blocks WHERE chain_id = ? AND number < ?"
            " ORDER BY number DESC LIMIT 1",
            (chain_id, height),
        )
        if below:
            w.execute(
                "UPDATE checkpoints SET height = ?, hash = ? WHERE chain_id = ?",
                (below[0][0], below[0][1], chain_id),
            )
        else:
            w.execute("DELETE FROM checkpoints WHERE chain_id = ?", (chain_id,))
        if since is not None and rollups is not None:
            rollup_tables.rebuild(w, chain_id, since, rollups, int(clock()))


def backfill_rollups(
    db: Database, chain_id: int, rollups: Rollups, *, clock: Callable[[], float] = time.time
) -> bool:
    """Builds the rollups of blocks indexed before this chain had any (a store written by a
    version without metrics); True when it did. Runs in one transaction."""
    with db.transaction() as w:
        if w.query("SELECT 1 FROM rollup_runs WHERE chain_id = ?", (chain_id,)):
            return False
        since = rollup_tables.forget_from(w, chain_id, 0)
        if since is None:
            return False
        rollup_tables.rebuild(w, chain_id, since, rollups, int(clock()))
        return True


def _recompute_owners(w: Writer, chain_id: int, height: int) -> None:
    stale = w.query(
        "SELECT token, token_id FROM nfts WHERE chain_id = ? AND owner_block >= ?",
        (chain_id, height),
    )
    for token, token_id in stale:
        last: list[tuple[Any, ...]] = w.query(
            "SELECT to_addr, block_number, log_index FROM transfers"
            " WHERE chain_id = ? AND token = ? AND token_id = ? AND erc_type = 'ERC-721'"
            " ORDER BY block_number DESC, log_index DESC LIMIT 1",
            (chain_id, token, token_id),
        )
        owner = last[0] if last else (None, None, None)
        w.execute(
            "UPDATE nfts SET owner = ?, owner_block = ?, owner_log = ?"
            " WHERE chain_id = ? AND token = ? AND token_id = ?",
            (*owner, chain_id, token, token_id),
        )
