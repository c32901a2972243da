"""The store's reads for the EVM half of the data service, on synthetic chains written through
write_batch: every keyset listing walked page by page equals the brute-force answer; balances
at a block equal the newest row at or below it; an unwind restores the current balances; a
schema-10 store upgrades to an empty index read again from genesis."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from snowfield.store import (
    balance_queries,
    chain_queries,
    evm_queries,
    feed_queries,
    token_queries,
    tx_queries,
    writes,
)
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page
from snowfield.store.rows import (
    ERC20,
    ERC721,
    ERC1155,
    BlockBundle,
    BlockRow,
    InternalTxRow,
    LogRow,
    TokenBalanceRow,
    TransferRow,
    TxRow,
)
from snowfield.store.schema import SCHEMA_VERSION
from tests.api.conftest import ALICE, BOB, CAROL, CHAIN, NFT, OTHER_CHAIN, TOKEN, add_chains

MULTI = "0x" + "15" * 20
HOLDERS = (ALICE, BOB, CAROL)


def _walk(read: Callable[[Key | None], Page[Any]]) -> list[Any]:
    out, after = [], None
    while True:
        page = read(after)
        out += page.items
        if page.next_key is None:
            return out
        after = page.next_key


def _bundle(chain_id: int, n: int, rng: random.Random) -> BlockBundle:
    """Block n: 1-3 txs among the holders (every fifth failed), an internal call each (value
    on odd ones), a log each, a TOKEN transfer, and random token balance rows."""
    txs, internals, logs, transfers, activity = [], [], [], [], []
    for i in range(rng.randint(1, 3)):
        src, dst = rng.sample(HOLDERS, 2)
        tx_hash = f"0x{chain_id:08x}{n:048x}{i:08x}"
        status = 0 if (n + i) % 5 == 0 else 1
        txs.append(
            TxRow(
                chain_id,
                n,
                i,
                tx_hash,
                f"0x{n:064x}",
                1_000 + n * 2,
                src,
                dst,
                7,
                n,
                21_000,
                21_000,
                25,
                2,
                status,
                "0xa9059cbb",
                None,
                30,
                2,
                "0xa9059cbb" + "00" * 64,
            )
        )
        internals.append(
            InternalTxRow(chain_id, n, i, 0, tx_hash, dst, src, "CALL", i % 2, 10, 5, False)
        )
        logs.append(LogRow(chain_id, n, i, i, tx_hash, TOKEN, ("0x" + "ab" * 32,), "0x01"))
        transfers.append(
            TransferRow(
                chain_id, n, i, i, 0, tx_hash, 1_000 + n * 2, TOKEN, "ERC-20", src, dst, None, n
            )
        )
        activity += [(src, i), (dst, i)]
    balances = [
        TokenBalanceRow(chain_id, holder, kind, token, token_id, n, rng.choice([0, 1, n]))
        for holder in HOLDERS
        for kind, token, token_id in ((ERC20, TOKEN, None), (ERC721, NFT, 1), (ERC1155, MULTI, 7))
        if rng.random() < 0.4
    ]
    # Every balance row is a transfer's effect (an unwind finds the rows through them).
    transfers += [
        TransferRow(
            chain_id,
            n,
            0,
            100 + j,
            0,
            txs[0].hash,
            1_000 + n * 2,
            r.token,
            {ERC20: "ERC-20", ERC721: "ERC-721", ERC1155: "ERC-1155"}[r.kind],
            "0x" + "00" * 20,
            r.holder,
            r.token_id,
            1,
        )
        for j, r in enumerate(balances)
    ]
    block = BlockRow(
        chain_id, n, f"0x{n:064x}", f"0x{n - 1:064x}", 1_000 + n * 2, 1, 2, 3, len(txs),
        ALICE, fees_spent=len(txs) * 21_000 * 25,
    )  # fmt: skip
    return BlockBundle(
        block, tuple(txs), tuple(transfers), tuple(internals), (), (), tuple(activity), (),
        tuple(logs), tuple(balances),
    )  # fmt: skip


def _chain(db: Database, chain_id: int, blocks: int, seed: int) -> list[BlockBundle]:
    rng = random.Random(seed)
    bundles = [_bundle(chain_id, n, rng) for n in range(blocks)]
    for i in range(0, blocks, 7):
        writes.write_batch(db, chain_id, bundles[i : i + 7])
    return bundles


def _filled(db: Database) -> tuple[list[BlockBundle], list[BlockBundle]]:
    add_chains(db)
    return _chain(db, CHAIN, 40, 1), _chain(db, OTHER_CHAIN, 25, 2)


def test_feeds_merge_chains_by_time_and_filter_status(db: Database) -> None:
    ours, others = _filled(db)
    everything = [*ours, *others]
    expected = sorted(
        everything, key=lambda b: (b.block.timestamp, b.block.chain_id, b.block.number)
    )[::-1]
    both = [CHAIN, OTHER_CHAIN]
    for size in (1, 4, 100):
        got = _walk(lambda a, n=size: feed_queries.latest_blocks(db, both, after=a, limit=n))
        assert [(b.chain_id, b.number) for b in got] == [
            (b.block.chain_id, b.block.number) for b in expected
        ]
    txs = [t for b in everything for t in b.txs]
    for status, wanted in ((None, {0, 1}), ("failed", {0}), ("success", {1})):
        expected_txs = sorted(
            (t for t in txs if t.status in wanted),
            key=lambda t: (t.block_timestamp, t.chain_id, t.block_number, t.tx_index),
            reverse=True,
        )
        for size in (3, 50):
            got_txs = _walk(
                lambda a, s=status, n=size: feed_queries.latest_transactions(
                    db, both, status=s, after=a, limit=n
                )
            )
            assert [t.hash for t in got_txs] == [t.hash for t in expected_txs]
    one = _walk(lambda a: feed_queries.latest_blocks(db, [CHAIN], after=a, limit=6))
    assert [b.number for b in one] == list(range(39, -1, -1))
    assert [b.cumulative_txs for b in reversed(one)] == [
        sum(len(b.txs) for b in ours[: n + 1]) for n in range(40)
    ]


def test_address_listings_keyset_both_ways(db: Database) -> None:
    ours, _ = _filled(db)
    for address in HOLDERS:
        for descending in (False, True):
            native = sorted(
                ((t.block_number, t.tx_index) for b in ours for t in b.txs
                 if address in (t.from_addr, t.to_addr) and 5 <= t.block_number < 30),
                reverse=descending,
            )  # fmt: skip
            got = _walk(
                lambda a, who=address, desc=descending: evm_queries.address_native_transactions(
                    db, CHAIN, who, start_block=5, end_block=30, descending=desc,
                    after=a, limit=4,
                )
            )  # fmt: skip
            assert [(t.block_number, t.tx_index) for t in got] == native
            assert all(t.max_fee_per_gas == 30 and t.input is None for t in got)
            internal = sorted(
                ((i.block_number, i.tx_index, i.trace_index) for b in ours for i in b.internal_txs
                 if address in (i.from_addr, i.to_addr) and i.value > 0),
                reverse=descending,
            )  # fmt: skip
            got_internal = _walk(
                lambda a, who=address, desc=descending: evm_queries.address_internal_txs(
                    db, CHAIN, who, start_block=None, end_block=None, descending=desc,
                    after=a, limit=3,
                )
            )  # fmt: skip
            assert [(i.block_number, i.tx_index, i.trace_index) for i in got_internal] == internal
    moved = _walk(
        lambda a: tx_queries.token_transfers(
            db, CHAIN, TOKEN, start_block=3, end_block=None, descending=True, after=a, limit=5
        )
    )
    assert [(t.block_number, t.log_index) for t in moved] == sorted(
        (
            (t.block_number, t.log_index)
            for b in ours
            for t in b.transfers
            if t.block_number >= 3 and t.token == TOKEN
        ),
        reverse=True,
    )
    assert [c.chain_id for c in chain_queries.address_chains(db, BOB)] == [CHAIN, OTHER_CHAIN]
    assert chain_queries.address_chains(db, "0x" + "99" * 20) == []


def test_a_transaction_view_has_its_input_logs_and_calls(db: Database) -> None:
    ours, _ = _filled(db)
    tx = ours[12].txs[0]
    view = tx_queries.find_transaction(db, CHAIN, tx.hash)
    assert view is not None and view.tx == tx
    assert view.block.number == 12 and view.block.fees_spent == ours[12].block.fees_spent
    assert view.logs == [g for g in ours[12].logs if g.tx_index == 0]
    assert view.internal_txs == [i for i in ours[12].internal_txs if i.tx_index == 0]
    assert view.transfers == [t for t in ours[12].transfers if t.tx_index == 0]
    assert tx_queries.find_transaction(db, OTHER_CHAIN, tx.hash) is None


def _expected(
    bundles: list[BlockBundle], holder: str, kinds: tuple[int, ...], block: int | None
) -> list[tuple[int, str, int | None, int]]:
    latest: dict[tuple[int, str, int | None], int] = {}
    for b in bundles:
        for r in b.token_balances:
            if (
                r.holder == holder
                and r.kind in kinds
                and (block is None or r.block_number <= block)
            ):
                latest[(r.kind, r.token, r.token_id)] = r.balance
    return sorted((*k, v) for k, v in latest.items() if v != 0)


def test_balances_now_and_at_every_block(db: Database) -> None:
    ours, _ = _filled(db)
    reads = (
        (
            (ERC20,),
            lambda h, b, a: balance_queries.erc20_balances(
                db, CHAIN, h, block=b, contracts=None, after=a, limit=1
            ),
        ),
        (
            (ERC721,),
            lambda h, b, a: balance_queries.erc721_balances(
                db, CHAIN, h, block=b, contract=None, after=a, limit=1
            ),
        ),
        (
            (ERC1155,),
            lambda h, b, a: balance_queries.erc1155_balances(
                db, CHAIN, h, block=b, contract=None, after=a, limit=1
            ),
        ),
        (
            (ERC721, ERC1155),
            lambda h, b, a: balance_queries.collectible_balances(
                db, CHAIN, h, block=b, contract=None, after=a, limit=1
            ),
        ),
    )
    for holder in HOLDERS:
        for block in (None, *range(0, 41, 3)):
            for kinds, read in reads:
                got = _walk(lambda a, r=read, h=holder, b=block: r(h, b, a))
                assert [(b.kind, b.token, b.token_id, b.balance) for b in got] == _expected(
                    ours, holder, kinds, block
                ), (holder, block, kinds)
    only = balance_queries.erc20_balances(
        db, CHAIN, ALICE, block=None, contracts=[NFT], after=None, limit=10
    )
    assert only.items == []
    # Native balances: the newest row at or below the block.
    writes.write_batch(db, CHAIN, [_native(50, 5), _native(52, 9)])
    assert balance_queries.native_balance_at(db, CHAIN, CAROL, 49) is None
    assert balance_queries.native_balance_at(db, CHAIN, CAROL, 51) == 5
    assert balance_queries.native_balance_at(db, CHAIN, CAROL, None) == 9


def _native(n: int, balance: int) -> BlockBundle:
    from snowfield.store.rows import BalanceRow

    block = BlockRow(CHAIN, n, f"0x{n:064x}", f"0x{n - 1:064x}", 2_000 + n, 1, 2, 3, 0, ALICE)
    return BlockBundle(block, balances=(BalanceRow(CHAIN, CAROL, n, balance),))


def test_an_unwind_restores_the_current_balances(db: Database) -> None:
    ours, _ = _filled(db)
    writes.unwind(db, CHAIN, 20)
    for holder in HOLDERS:
        got = balance_queries.collectible_balances(
            db, CHAIN, holder, block=None, contract=None, after=None, limit=100
        )
        assert [(b.kind, b.token, b.token_id, b.balance) for b in got.items] == _expected(
            ours[:20], holder, (ERC721, ERC1155), None
        )
    assert db.query(
        "SELECT COUNT(*) FROM token_balance_history WHERE chain_id = ? AND block_number >= 20",
        (CHAIN,),
    ) == [(0,)]
    gone = "SELECT COUNT(*) FROM logs WHERE chain_id = ? AND block_number >= 20"
    assert db.query(gone, (CHAIN,)) == [(0,)]


def _nft_rows(db: Database) -> Iterator[Any]:
    yield from db.query("SELECT token, token_id, owner FROM nfts ORDER BY token, token_id")


def test_a_schema_10_store_is_read_again_from_genesis(db: Database) -> None:
    from tests.api.conftest import ChainBuilder

    add_chains(db)
    ChainBuilder(db).add(6)
    owners_before = [r for r in _nft_rows(db) if r[2] is not None]
    assert owners_before
    with db.transaction() as w:  # what schema 10 had: none of schema 11's tables and columns
        for index in ("address_txs_native", "internal_txs_from_key", "internal_txs_to_key"):
            w.execute(f"DROP INDEX {index}")
        for table in ("logs", "tx_inputs", "token_balance_history", "token_balances"):
            w.execute(f"DROP TABLE {table}")
        for table, column in (
            ("blocks", "fees_spent"), ("blocks", "cumulative_txs"), ("blocks", "gas_cost"),
            ("blocks", "timestamp_ms"), ("blocks", "min_delay_excess"),
            ("transactions", "max_fee_per_gas"), ("transactions", "max_priority_fee_per_gas"),
            ("internal_txs", "listed"), ("address_txs", "native"),
        ):  # fmt: skip
            w.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        w.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    for table in ("blocks", "transactions", "transfers", "address_txs", "balances", "checkpoints"):
        assert db.query(f"SELECT COUNT(*) FROM {table}") == [(0,)], table
    assert writes.checkpoint(db, CHAIN) is None
    assert [c.chain_id for c in chain_queries.list_chains(db)] == [CHAIN, OTHER_CHAIN]
    assert token_queries.tokens(db, CHAIN, [TOKEN])  # token facts stay
    assert [r[:2] for r in _nft_rows(db)] and all(r[2] is None for r in _nft_rows(db))
    # The indexer's next batches write every schema 11 column again.
    ours = _chain(db, CHAIN, 10, 3)
    got = feed_queries.latest_blocks(db, [CHAIN], after=None, limit=1).items[0]
    assert (got.number, got.cumulative_txs) == (9, sum(len(b.txs) for b in ours))
    db.migrate()  # idempotent
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
