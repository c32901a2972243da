"""Writes of the primary network's index: P-Chain blocks with their txs, UTXOs, stakers,
subnets and chains, and the checkpoint, in one transaction per batch."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from snowfield.store import (
    l1_fees,
    p_holdings,
    primary_blocks,
    sql,
    staking_rollups,
    validator_documents,
    webhook_primary,
    webhook_validators,
)
from snowfield.store.database import Database, Writer
from snowfield.store.l1_fee_math import FeeConfig
from snowfield.store.primary_documents import render_stored
from snowfield.store.primary_queries import STAKING_TX_TYPES
from snowfield.store.primary_rows import BlockRows, Spend, UtxoRow
from snowfield.store.primary_schema import OWNER_INSERT, owner_rows, split_list
from snowfield.store.validator_schema import BUMP_GENERATION


@dataclass(frozen=True, slots=True)
class PrimaryNetwork:
    """The primary network an index holds."""

    pchain: str
    network_id: int
    hrp: str
    xchain: str | None
    cchain: str | None
    avax_asset: str


@dataclass(frozen=True, slots=True)
class PCheckpoint:
    next_index: int
    height: int
    block_id: str
    timestamp: int


def record_network(db: Database, net: PrimaryNetwork) -> None:
    with db.transaction() as w:
        w.execute(
            "INSERT INTO primary_networks (pchain, network_id, hrp, xchain, cchain, avax_asset)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pchain) DO UPDATE SET"
            " network_id = excluded.network_id, hrp = excluded.hrp, xchain = excluded.xchain,"
            " cchain = excluded.cchain, avax_asset = excluded.avax_asset",
            (net.pchain, net.network_id, net.hrp, net.xchain, net.cchain, net.avax_asset),
        )


def networks(db: Database) -> list[PrimaryNetwork]:
    rows = db.query(
        "SELECT pchain, network_id, hrp, xchain, cchain, avax_asset FROM primary_networks"
    )
    return [PrimaryNetwork(*row) for row in rows]


def genesis_done(db: Database, pchain: str) -> bool:
    row = db.query_one("SELECT genesis_done FROM primary_networks WHERE pchain = ?", (pchain,))
    return bool(row and row[0])


def first_block(db: Database, pchain: str) -> tuple[int, str, int, str] | None:
    """(height, id, timestamp, parent id) of the first indexed block."""
    row = db.query_one(
        "SELECT height, block_id, timestamp, parent_id FROM p_blocks WHERE pchain = ?"
        " ORDER BY height LIMIT 1",
        (pchain,),
    )
    return None if row is None else (int(row[0]), str(row[1]), int(row[2]), str(row[3]))


def known_txs(db: Database, pchain: str, tx_ids: Sequence[str]) -> set[str]:
    if not tx_ids:
        return set()
    rows = db.query(
        f"SELECT tx_id FROM p_txs WHERE pchain = ? AND tx_id IN {sql.in_list(tx_ids)}",
        [pchain, *tx_ids],
    )
    return {str(r[0]) for r in rows}


def write_genesis(db: Database, pchain: str, rows: BlockRows, potential: Mapping[str, int]) -> None:
    """The genesis state's txs (its stakers) into the genesis block, once."""
    with db.transaction() as w:
        _write_blocks(w, pchain, [rows])
        _hold(w, pchain, [rows])
        _write_potential(w, pchain, potential)
        _write_documents(w, pchain, _touched([rows]))
        _write_validations(w, pchain, [rows], (), potential)
        w.execute("UPDATE primary_networks SET genesis_done = 1 WHERE pchain = ?", (pchain,))


def record_chain_time(db: Database, pchain: str, unix: int) -> None:
    """The node's P-Chain time at the last sync: who is current is judged against it."""
    with db.transaction() as w:
        w.execute("UPDATE primary_networks SET chain_time = ? WHERE pchain = ?", (unix, pchain))
        # The validators list's entries whose window the new time leaves; its answers move.
        validator_documents.refresh(w, pchain)
        w.execute(BUMP_GENERATION, (pchain,))


def checkpoint(db: Database, pchain: str) -> PCheckpoint | None:
    row = db.query_one(
        "SELECT next_index, height, block_id, timestamp FROM p_checkpoints WHERE pchain = ?",
        (pchain,),
    )
    return None if row is None else PCheckpoint(*row)


def write_blocks(
    db: Database,
    pchain: str,
    blocks: Sequence[BlockRows],
    next_index: int,
    rewards: Sequence[tuple[int, UtxoRow]] = (),
    potential: Mapping[str, int] | None = None,
    fees: FeeConfig | None = None,
) -> None:
    """Writes consecutive blocks, the reward UTXOs they paid (each with the height of the
    commit block that paid it, one of `blocks`) and the stakers' potential rewards, charges
    the L1 validators' fees up to them (`fees`: the node's validator fee configuration), and
    moves the checkpoint past them, atomically."""
    if not blocks:
        return
    times = {b.height: b.timestamp for b in blocks}
    last = blocks[-1]
    with db.transaction() as w:
        _write_blocks(w, pchain, blocks)
        _insert_utxos(w, pchain, [(u, height, times[height]) for height, u in rewards])
        _hold(w, pchain, blocks, [u.utxo_id for _, u in rewards])
        _write_documents(w, pchain, _touched(blocks) | {u.tx_id for _, u in rewards})
        _write_potential(w, pchain, potential or {})
        _write_validations(w, pchain, blocks, rewards, potential or {})
        l1_fees.advance(w, pchain, [_fee_block(b) for b in blocks], fees)
        # Invariant: webhook messages commit with the rows they report (store/webhook_primary.py).
        webhook_primary.enqueue(w, pchain, blocks, rewards, int(time.time() * 1000))
        # Invariant: webhook messages commit with the rows they report (after the documents).
        webhook_validators.on_blocks(w, pchain, blocks, rewards, int(time.time() * 1000))
        w.execute(
            "INSERT INTO p_checkpoints (pchain, next_index, height, block_id, timestamp)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (pchain) DO UPDATE SET"
            " next_index = excluded.next_index, height = excluded.height,"
            " block_id = excluded.block_id, timestamp = excluded.timestamp",
            (pchain, next_index, last.height, last.block_id, last.timestamp),
        )


def write_fees(db: Database, pchain: str, blocks: Sequence[BlockRows], fees: FeeConfig) -> None:
    """Replays the L1 validator fee ledger over blocks written before it existed (their other
    rows are in the store already)."""
    with db.transaction() as w:
        l1_fees.advance(w, pchain, [_fee_block(b) for b in blocks], fees)


def _fee_block(b: BlockRows) -> l1_fees.Block:
    # An option block keeps its proposal's chain time (its own stamp is the wrapper's).
    return b.height, None if b.option else b.timestamp, l1_fees.fee_events(b.l1_changes)


def _hold(w: Writer, pchain: str, blocks: Sequence[BlockRows], rewards: Sequence[str] = ()) -> None:
    """The owners' unspent UTXOs (store/p_holdings.py) after the blocks' UTXO writes."""
    emitted = [u.utxo_id for b in blocks for u in b.emitted]
    consumed = [spend.utxo_id for b in blocks for _, spend in b.spends]
    ended = [staker for b in blocks for staker, _ in b.ended]
    for b in blocks:  # the stakers a removal ended (_write_stakers)
        for node_id, subnet_id, tx_id in b.removed:
            ended += [
                str(r[0])
                for r in w.query(
                    "SELECT tx_id FROM p_stakers WHERE pchain = ? AND node_id = ?"
                    " AND subnet_id = ? AND ended_tx = ?",
                    (pchain, node_id, subnet_id, tx_id),
                )
            ]
    p_holdings.refresh(w, pchain, [*emitted, *rewards], consumed, ended)


def _write_potential(w: Writer, pchain: str, potential: Mapping[str, int]) -> None:
    """The stakers' latest potential rewards, in p_stakers and operation 11's rows."""
    for table in ("p_stakers", "p_staking_txs"):
        w.executemany(
            f"UPDATE {table} SET potential_reward = ? WHERE pchain = ? AND tx_id = ?",
            [(str(reward), pchain, tx_id) for tx_id, reward in potential.items()],
        )


def _write_validations(
    w: Writer,
    pchain: str,
    blocks: Sequence[BlockRows],
    rewards: Sequence[tuple[int, UtxoRow]],
    potential: Mapping[str, int],
) -> None:
    """The validators list's entries (store/validator_documents.py) after the blocks' staker,
    reward and potential-reward writes: every validation of each node they touch, then those
    whose window the chain time leaves (with no recorded time, it is the last block's)."""
    nodes = {s.node_id for b in blocks for s in b.stakers}
    nodes.update(node_id for b in blocks for node_id, _, _ in b.removed)
    ended = [staker for b in blocks for staker, _ in b.ended]
    nodes |= validator_documents.nodes_of(
        w, pchain, [*ended, *(u.tx_id for _, u in rewards), *potential]
    )
    validator_documents.render_nodes(w, pchain, nodes)
    validator_documents.refresh(w, pchain)
    w.execute(BUMP_GENERATION, (pchain,))  # the list's answers may move with any block


def _touched(blocks: Sequence[BlockRows]) -> set[str]:
    """The txs whose documents these blocks may change: their own staking txs, and the txs
    that emitted the UTXOs they consume."""
    out = {t.tx_id for b in blocks for t in b.txs if t.tx_type in STAKING_TX_TYPES}
    out.update(spend.source_tx for b in blocks for _, spend in b.spends)
    return out


def _write_documents(w: Writer, pchain: str, tx_ids: set[str]) -> None:
    """(Re)renders the documents of the staking txs among `tx_ids` from the rows as this
    transaction leaves them: a stored document is never older than its rows."""
    if not tx_ids:
        return
    network = w.query("SELECT avax_asset FROM primary_networks WHERE pchain = ?", (pchain,))
    if not network:
        return
    ids = sorted(tx_ids)
    for chunk in sql.chunks(ids):
        staking = [
            str(r[0])
            for r in w.query(
                "SELECT tx_id FROM p_staking_txs WHERE pchain = ?"
                f" AND tx_id IN {sql.in_list(chunk)}",
                [pchain, *chunk],
            )
        ]
        documents = render_stored(w, pchain, network[0][0], staking)
        w.executemany(
            "UPDATE p_staking_txs SET document = ? WHERE pchain = ? AND tx_id = ?",
            [(document, pchain, tx_id) for tx_id, document in sorted(documents.items())],
        )


def _write_blocks(w: Writer, pchain: str, blocks: Sequence[BlockRows]) -> None:
    """The blocks' rows. Blocks, txs, UTXOs, spends and address links go in one statement
    each for the whole batch (statements per block were half the writer's time, and the
    writer shares the GIL with extraction); stakers and subnets block by block, as each
    block's changes depend on the ones before."""
    w.executemany(
        "INSERT INTO p_blocks (pchain, height, block_id, parent_id, timestamp, tx_count)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, height) DO NOTHING",
        [(pchain, b.height, b.block_id, b.parent_id, b.timestamp, len(b.txs)) for b in blocks],
    )
    w.executemany(
        "INSERT INTO p_txs (pchain, tx_id, height, tx_index, block_id, timestamp, tx_type, memo,"
        " details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, tx_id) DO NOTHING",
        [
            (
                pchain,
                t.tx_id,
                b.height,
                t.tx_index,
                b.block_id,
                b.timestamp,
                t.tx_type,
                t.memo,
                json.dumps(t.details, separators=(",", ":")),
            )
            for b in blocks
            for t in b.txs
        ],
    )
    # Every UTXO before any spend: a UTXO exists before the tx that spends it.
    _insert_utxos(w, pchain, [(u, b.height, b.timestamp) for b in blocks for u in b.emitted])
    _consume(w, pchain, [(consumer, spend, b) for b in blocks for consumer, spend in b.spends])
    position = {t.tx_id: (b.timestamp, b.height, t.tx_index) for b in blocks for t in b.txs}
    links = {(a, t.tx_id) for b in blocks for t in b.txs for a in t.addresses}
    consumers = sorted({consumer for b in blocks for consumer, _ in b.spends})
    for chunk in sql.chunks(consumers):
        for consumer, addresses in w.query(
            "SELECT consuming_tx, addresses FROM p_utxos WHERE pchain = ?"
            f" AND consuming_tx IN {sql.in_list(chunk)}",
            [pchain, *chunk],
        ):
            links.update((a, str(consumer)) for a in split_list(addresses))
    w.executemany(
        "INSERT INTO p_tx_addresses (pchain, address, tx_id, timestamp, height, tx_index)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, address, tx_id) DO NOTHING",
        [(pchain, a, tx, *position[tx]) for a, tx in sorted(links)],
    )
    primary_blocks.write(w, pchain, [(b.height, b.detail) for b in blocks])
    for b in blocks:
        _write_stakers(w, pchain, b)
        _write_subnets(w, pchain, b)


def _insert_utxos(w: Writer, pchain: str, utxos: Sequence[tuple[UtxoRow, int, int]]) -> None:
    """UTXOs with the height and time of the block that emitted them."""
    w.executemany(
        "INSERT INTO p_utxos (pchain, utxo_id, tx_id, output_index, asset_id, amount, addresses,"
        " threshold, locktime, stakeable_locktime, staked, created_on, consumed_on, utxo_bytes,"
        " reward_type, utxo_start, utxo_end, block_height, block_timestamp)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (pchain, utxo_id) DO UPDATE SET reward_type = excluded.reward_type",
        [
            (
                pchain,
                u.utxo_id,
                u.tx_id,
                u.output_index,
                u.asset_id,
                str(u.amount),
                ",".join(u.addresses),
                u.threshold,
                u.locktime,
                u.stakeable_locktime,
                int(u.staked),
                u.created_on,
                u.consumed_on,
                u.utxo_bytes,
                u.reward_type,
                u.start,
                u.end,
                height,
                timestamp,
            )
            for u, height, timestamp in utxos
        ],
    )


def _consume(w: Writer, pchain: str, spends: Sequence[tuple[str, Spend, BlockRows]]) -> None:
    """Marks the spent UTXOs consumed. One created outside the blocks this index holds
    (genesis, or another chain's export) is inserted with what the input says of it."""
    w.executemany(
        "INSERT INTO p_utxos (pchain, utxo_id, tx_id, output_index, asset_id, amount, addresses,"
        " staked, created_on, consumed_on, consuming_tx, consuming_height, consuming_timestamp)"
        " VALUES (?, ?, ?, ?, ?, ?, '', 0, ?, ?, ?, ?, ?) ON CONFLICT (pchain, utxo_id) DO UPDATE"
        " SET consuming_tx = excluded.consuming_tx, consuming_height = excluded.consuming_height,"
        " consuming_timestamp = excluded.consuming_timestamp",
        [
            (
                pchain,
                spend.utxo_id,
                spend.source_tx,
                spend.output_index,
                spend.asset_id,
                str(spend.amount),
                spend.source_chain,
                pchain,
                consumer,
                b.height,
                b.timestamp,
            )
            for consumer, spend, b in spends
        ],
    )


def _write_stakers(w: Writer, pchain: str, b: BlockRows) -> None:
    staking_rollups.add(
        w, pchain, [(s.kind, s.subnet_id, s.start, s.end, s.amount) for s in b.stakers],
        [s.tx_id for s in b.stakers],
    )  # fmt: skip
    w.executemany(
        "INSERT INTO p_stakers (pchain, tx_id, kind, node_id, subnet_id, start_time, end_time,"
        " amount, reward_addresses, fee_addresses, delegation_fee)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, tx_id) DO NOTHING",
        [
            (
                pchain,
                s.tx_id,
                s.kind,
                s.node_id,
                s.subnet_id,
                s.start,
                s.end,
                str(s.amount),
                ",".join(s.reward_addresses),
                ",".join(s.fee_addresses),
                s.delegation_fee,
            )
            for s in b.stakers
        ],
    )
    index = {t.tx_id: t.tx_index for t in b.txs}
    w.executemany(
        "INSERT INTO p_staking_txs (pchain, timestamp, height, tx_index, tx_id, end_time)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (pchain, timestamp, height, tx_index) DO NOTHING",
        [(pchain, b.timestamp, b.height, index[s.tx_id], s.tx_id, s.end) for s in b.stakers],
    )
    owners = []
    for s in b.stakers:
        terms = None
        if s.kind == "DELEGATOR":
            terms = _delegation_terms(w, pchain, s.tx_id, s.node_id, s.subnet_id)
        fee = s.fee_addresses if terms is None else terms  # what p_stakers now holds
        owners += owner_rows(pchain, s.tx_id, s.start, s.reward_addresses, fee)
    w.executemany(OWNER_INSERT, owners)
    # A removal ends the node's stakers on the subnet that nothing ended before it.
    ended = dict(b.ended)
    for node_id, subnet_id, tx_id in b.removed:
        for (staker,) in w.query(
            "SELECT tx_id FROM p_stakers WHERE pchain = ? AND node_id = ? AND subnet_id = ?"
            " AND ended_tx IS NULL",
            (pchain, node_id, subnet_id),
        ):
            ended.setdefault(str(staker), tx_id)
    removed = {t for _, _, t in b.removed}
    staking_rollups.remove(
        w, pchain, [s for s, t in ended.items() if t in removed], b.timestamp
    )  # before ended_tx is set
    for table in ("p_stakers", "p_staking_txs"):
        w.executemany(
            f"UPDATE {table} SET ended_tx = ? WHERE pchain = ? AND tx_id = ?",
            [(ending_tx, pchain, staking_tx) for staking_tx, ending_tx in ended.items()],
        )


def _delegation_terms(
    w: Writer, pchain: str, tx_id: str, node_id: str, subnet_id: str
) -> list[str] | None:
    """A delegation's fee goes to its validator's delegation-reward owner at its fee rate;
    returns that owner's addresses (None: no validator known)."""
    found = w.query(
        "SELECT fee_addresses, delegation_fee FROM p_stakers WHERE pchain = ? AND node_id = ?"
        " AND subnet_id = ? AND kind <> 'DELEGATOR' ORDER BY start_time DESC LIMIT 1",
        (pchain, node_id, subnet_id),
    )
    if not found:
        return None
    w.execute(
        "UPDATE p_stakers SET fee_addresses = ?, delegation_fee = ? WHERE pchain = ? AND tx_id = ?",
        (found[0][0], found[0][1], pchain, tx_id),
    )
    return list(split_list(str(found[0][0])))


def _write_subnets(w: Writer, pchain: str, b: BlockRows) -> None:
    for s in b.subnets:
        addresses, threshold, locktime = s.owner
        w.execute(
            "INSERT INTO p_subnets (pchain, subnet_id, height, timestamp, owner_addresses,"
            " threshold, locktime) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (pchain, subnet_id) DO NOTHING",
            (pchain, s.subnet_id, b.height, b.timestamp, ",".join(addresses), threshold, locktime),
        )
    for subnet_id, (addresses, threshold, locktime) in b.owners:
        w.execute(
            "UPDATE p_subnets SET owner_addresses = ?, threshold = ?, locktime = ?"
            " WHERE pchain = ? AND subnet_id = ?",
            (",".join(addresses), threshold, locktime, pchain, subnet_id),
        )
    for c in b.conversions:
        w.execute(
            "UPDATE p_subnets SET conversion_tx = ?, manager_chain = ?, manager_address = ?"
            " WHERE pchain = ? AND subnet_id = ?",
            (c.tx_id, c.manager_chain, c.manager_address, pchain, c.subnet_id),
        )
    w.executemany(
        "INSERT INTO p_chains (pchain, blockchain_id, subnet_id, height, timestamp, name, vm_id,"
        " evm_chain_id, genesis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (pchain, blockchain_id) DO NOTHING",
        [
            (
                pchain,
                c.blockchain_id,
                c.subnet_id,
                b.height,
                b.timestamp,
                c.name,
                c.vm_id,
                c.evm_chain_id,
                c.genesis,
            )
            for c in b.chains
        ],
    )
