"""The AVAX supply's parts that the primary index can add up (GET /v1/avax/supply): AVAX burned
by P- and X-Chain txs (what their inputs held beyond their outputs), fees paid on the C-Chain,
rewards paid, AVAX locked in unspent UTXOs, the genesis allocations unlocked, and L1 validator
balances deposited. Amounts in nAVAX, except the C-Chain's fees (wei)."""

from __future__ import annotations

from snowfield.store.database import Database


def _total(db: Database, sql: str, params: tuple[object, ...]) -> int:
    # Summed in Python: amounts are TEXT and a wei sum overflows SQLite's 64-bit integers.
    return sum(int(r[0]) for r in db.query(sql, params))


def p_burned(db: Database, pchain: str, avax: str, tx_types: tuple[str, ...] = ()) -> int:
    """AVAX the P-Chain's txs (of these types; all when none given) consumed (their own,
    imported) minus what they emitted (change, stake, exports); reward UTXOs are minted, not
    paid from a tx's inputs, so left out."""
    marks = ", ".join("?" for _ in tx_types)
    # The genesis validators' txs (height 0) stake AVAX no UTXO paid for: not spending.
    txs = "SELECT tx_id FROM p_txs WHERE pchain = ? AND height > 0" + (
        f" AND tx_type IN ({marks})" if tx_types else ""
    )
    consumed = _total(
        db,
        f"SELECT amount FROM p_utxos WHERE pchain = ? AND asset_id = ? AND consuming_tx IN ({txs})",
        (pchain, avax, pchain, *tx_types),
    )
    emitted = _total(
        db,
        "SELECT amount FROM p_utxos WHERE pchain = ? AND asset_id = ? AND reward_type IS NULL"
        f" AND tx_id IN ({txs})",
        (pchain, avax, pchain, *tx_types),
    )
    return consumed - emitted


def x_burned(db: Database, pchain: str, xchain: str, avax: str, cchain: str | None = None) -> int:
    """AVAX each X-Chain tx consumed (X UTXOs, the genesis allocations among them, and the UTXOs
    its imports took from the P- or C-Chain's exports) beyond what it emitted, summed. A tx
    whose import's export is not indexed shows more out than in: it counts as burning nothing
    (the X-Chain mints no AVAX)."""
    txs = "SELECT tx_id FROM x_txs WHERE xchain = ?"
    sources: list[tuple[str, tuple[object, ...], int]] = [
        (
            "SELECT consuming_tx, amount FROM x_utxos WHERE xchain = ? AND asset_id = ?"
            f" AND consuming_tx IN ({txs})",
            (xchain, avax, xchain),
            1,
        ),
        (
            "SELECT i.tx_id, u.amount FROM x_imports i JOIN p_utxos u ON u.pchain = ?"
            " AND u.utxo_id = i.utxo_id AND u.consumed_on = i.xchain"
            " WHERE i.xchain = ? AND u.asset_id = ?",
            (pchain, xchain, avax),
            1,
        ),
        (
            "SELECT tx_id, amount FROM x_utxos WHERE xchain = ? AND asset_id = ?"
            f" AND tx_id IN ({txs})",
            (xchain, avax, xchain),
            -1,
        ),
    ]
    if cchain is not None:
        sources.append(
            (
                "SELECT i.tx_id, u.amount FROM x_imports i JOIN c_atomic_utxos u"
                " ON u.cchain = ? AND u.utxo_id = i.utxo_id AND u.consumed_on = i.xchain"
                " WHERE i.xchain = ? AND u.asset_id = ?",
                (cchain, xchain, avax),
                1,
            )
        )
    net: dict[str, int] = {}
    for sql, params, sign in sources:
        for tx, amount in db.query(sql, params):
            net[str(tx)] = net.get(str(tx), 0) + sign * int(amount)
    return sum(max(0, v) for v in net.values())


def c_atomic_fees(db: Database, cchain: str) -> int:
    """The AVAX (nAVAX) the C-Chain's atomic txs burned as fees (extract/atomic.py)."""
    return _total(db, "SELECT fee FROM c_atomic_txs WHERE cchain = ?", (cchain,))


def c_fees(db: Database, cchain: str) -> int:
    """Fees the C-Chain's indexed blocks paid (wei; every fee on the C-Chain is burned)."""
    return _total(
        db,
        "SELECT b.fees_spent FROM blocks b JOIN chains c ON c.chain_id = b.chain_id"
        " WHERE c.blockchain_id = ?",
        (cchain,),
    )


def rewards_paid(db: Database, pchain: str, avax: str) -> int:
    return _total(
        db,
        "SELECT amount FROM p_utxos WHERE pchain = ? AND asset_id = ? AND reward_type IS NOT NULL",
        (pchain, avax),
    )


def locked(db: Database, pchain: str, xchain: str | None, avax: str, now: int) -> int:
    """Unspent, unstaked AVAX whose (stakeable) locktime is still ahead, on P and X."""
    out = _total(
        db,
        "SELECT amount FROM p_utxos WHERE pchain = ? AND asset_id = ? AND consuming_tx IS NULL"
        " AND consumed_on = ? AND staked = 0"
        " AND (COALESCE(locktime, 0) > ? OR COALESCE(stakeable_locktime, 0) > ?)",
        (pchain, avax, pchain, now, now),
    )
    if xchain is not None:
        out += _total(
            db,
            "SELECT amount FROM x_utxos WHERE xchain = ? AND asset_id = ?"
            " AND consuming_tx IS NULL AND consumed_on = ? AND locktime > ?",
            (xchain, avax, xchain, now),
        )
    return out


def genesis_unlocked(db: Database, pchain: str, avax: str, now: int) -> int:
    """The P-Chain genesis AVAX the index has seen unlocked: the genesis validators' stake (the
    UTXOs of height 0) and the genesis allocations spent since (created on the P-Chain by no
    indexed tx). An allocation never spent is in no index row, so not counted."""
    return _total(
        db,
        "SELECT amount FROM p_utxos WHERE pchain = ? AND asset_id = ? AND reward_type IS NULL"
        " AND created_on = ? AND (block_height = 0 OR (block_height IS NULL AND tx_id NOT IN"
        " (SELECT tx_id FROM p_txs WHERE pchain = ?)))"
        " AND COALESCE(locktime, 0) <= ? AND COALESCE(stakeable_locktime, 0) <= ?",
        (pchain, avax, pchain, pchain, now, now),
    )


def l1_balances(db: Database, pchain: str) -> int:
    """The L1 validators' balances as the node last reported them (still held, not burned)."""
    return _total(db, "SELECT balance FROM p_l1_validators WHERE pchain = ?", (pchain,))


def block_time(db: Database, pchain: str, height: int) -> int | None:
    row = db.query_one(
        "SELECT timestamp FROM p_blocks WHERE pchain = ? AND height = ?", (pchain, height)
    )
    return None if row is None else int(row[0])
