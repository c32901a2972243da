"""The P-Chain's balances and UTXO pages from the writer's per-owner rows (store/p_holdings.py)
answer byte for byte what the UTXO scan (store/p_address_queries.py) answers, over the devnet's
demo traffic (staking and rewards, spends, an X→P import), on
SQLite and on PostgreSQL, as indexed and after the upgrade from schema 19 rebuilds the rows.
One address's balance reads its balance rows (p_balance_rows.py), more their UTXO rows: both
are compared."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import orjson
import pytest

from snowfield.api.primary.balances import p_balances
from snowfield.store import p_address_queries, p_genesis, p_holdings, primary
from snowfield.store.database import Database
from snowfield.store.p_address_queries import UtxoFilter
from snowfield.store.primary_documents import utxo
from snowfield.store.primary_queries import chain_time
from snowfield.store.primary_schema import split_list
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.testing import open_database, serve_devnet
from snowfield.workload.atomic_demo import run_atomic_demo
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from snowfield.workload.x_demo import run_x_demo
from tests.conftest import _db_kinds, _url
from tests.helpers import sync_primary

Store = tuple[Database, str, str, list[str]]  # db, P-Chain id, AVAX asset id, owners


@pytest.fixture(scope="module", params=_db_kinds())
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    with serve_devnet(validators=2) as devnet:
        keys = [k.private_key for k in devnet.node.dev_keys]
        secret = demo_secret(keys)
        asyncio.run(run_platform_demo(devnet.base, secret, lambda _line: None))
        asyncio.run(run_x_demo(devnet.base, [secret, *keys[:2]], rounds=2, interval=0,
                               stop=None, log=lambda _line: None))  # fmt: skip
        asyncio.run(run_atomic_demo(devnet.base, secret, rounds=1, interval=0, stop=None,
                                    log=lambda _line: None))  # fmt: skip
        with open_database(_url(request.param, tmp_path_factory.mktemp("ph"))) as db:
            asyncio.run(sync_primary(db, devnet.base))
            (net,) = primary.networks(db)
            owners = sorted(
                {
                    a
                    for (text,) in db.query("SELECT addresses FROM p_utxos")
                    for a in split_list(text)
                }
            )
            yield db, net.pchain, net.avax_asset, owners


def _old_balances(db: Database, pchain: str, avax: str, addresses: list[str]) -> bytes:
    held = p_address_queries.held_utxos(db, pchain, addresses)
    locked = any(u.staked or u.stakeable_locktime or u.locktime for u in held)
    return orjson.dumps(p_balances(avax, held, chain_time(db, pchain) if locked else None))


def _new_balances(db: Database, pchain: str, addresses: list[str], avax: str) -> bytes:
    held, now = p_holdings.held_now(db, pchain, addresses)
    return orjson.dumps(p_balances(avax, held, now))


FILTERS = [
    UtxoFilter(False, None, None, by_amount=False, desc=False),
    UtxoFilter(False, None, None, by_amount=False, desc=True),
    UtxoFilter(False, None, None, by_amount=True, desc=False),
    UtxoFilter(False, None, None, by_amount=True, desc=True),
    UtxoFilter(False, None, 10**9, by_amount=True, desc=False),
]


def _pages(fetch: Any) -> list[tuple[list[bytes], Any]]:
    """Every page (documents, next key) through 2-item pages."""
    out, after = [], None
    for _ in range(500):
        docs, after = fetch(after)
        out.append((docs, after))
        if after is None:
            return out
    raise AssertionError("paging did not end")


def _old_utxos(db: Database, pchain: str, avax: str, addresses: list[str], f: UtxoFilter) -> Any:
    def fetch(after: Any) -> tuple[list[bytes], Any]:
        page = p_address_queries.utxo_page(db, pchain, addresses, f, after, 2)
        return [orjson.dumps(utxo(avax, u)) for u in page.items], page.next_key

    return _pages(fetch)


def _new_utxos(db: Database, pchain: str, addresses: list[str], f: UtxoFilter) -> Any:
    def fetch(after: Any) -> tuple[list[bytes], Any]:
        page = p_holdings.utxo_documents(db, pchain, addresses, f, after, 2)
        assert page is not None  # every document written
        return [bytes(r[-1]) for r in page.items], page.next_key

    return _pages(fetch)


def _groups(owners: list[str]) -> list[list[str]]:
    return [[a] for a in owners] + [owners[:2], owners]


def _assert_same(s: Store) -> int:
    """Every owner alone and together: balances, and UTXO pages under each filter; the number
    of UTXO documents compared."""
    db, pchain, avax, owners = s
    compared = 0
    for group in _groups(owners):
        assert _new_balances(db, pchain, group, avax) == _old_balances(db, pchain, avax, group)
        assets = {u.asset_id for u in p_address_queries.held_utxos(db, pchain, group)}
        filters = FILTERS + [replace(FILTERS[0], asset_id=a) for a in sorted(assets)]
        for f in filters:
            new = _new_utxos(db, pchain, group, f)
            assert new == _old_utxos(db, pchain, avax, group, f), (group, f)
            compared += sum(len(docs) for docs, _ in new)
    return compared


def test_the_owner_rows_answer_as_the_utxo_scan(store: Store) -> None:
    db, pchain, _, owners = store
    assert len(owners) >= 3
    # Staked, rewarded, spent and imported UTXOs are among them (else the test proves little).
    kinds = db.query(
        "SELECT SUM(staked), COUNT(reward_type), COUNT(consuming_tx),"
        " SUM(CASE WHEN created_on <> pchain THEN 1 ELSE 0 END) FROM p_utxos WHERE pchain = ?",
        (pchain,),
    )[0]
    assert all(int(k or 0) > 0 for k in kinds), kinds
    assert _assert_same(store) > 10


def _tables(db: Database) -> list[list[tuple[Any, ...]]]:
    return [
        db.query(
            "SELECT pchain, address, block_timestamp, utxo_id, tx_id, amount, document"
            " FROM p_holdings ORDER BY pchain, address, utxo_id"
        ),
        db.query(
            "SELECT * FROM p_balance_rows ORDER BY pchain, address, asset_id, staked,"
            " staker_ended, utxo_start, stakeable_locktime, locktime"
        ),
    ]


def test_the_upgrade_from_schema_19_rebuilds_the_same_rows(store: Store) -> None:
    db, pchain, _, owners = store
    before = _tables(db)
    assert all(before)
    with db.transaction() as w:
        w.execute("DROP TABLE p_holdings")
        w.execute("DROP TABLE p_balance_rows")
        w.execute("UPDATE meta SET value = '19' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    holdings, balances = _tables(db)
    assert balances == before[1]
    # The rows without their documents: a page reads p_utxos until the writer fills them.
    assert [r[:-1] for r in holdings] == [r[:-1] for r in before[0]]
    assert all(r[-1] is None for r in holdings)
    assert p_holdings.utxo_documents(db, pchain, owners, FILTERS[0], None, 2) is None
    with db.transaction() as w:
        assert p_holdings.fill_documents(w, pchain, limit=3) == 3
        p_holdings.fill_documents(w, pchain)
    assert _tables(db) == before
    assert _assert_same(store) > 10


def test_one_statement_reads_answer_as_their_parts(store: Store) -> None:
    """A balance's rows carrying the genesis flag and the chain time, and a UTXO page carrying
    the genesis flag (one statement each), answer as the separate reads do, for owners with and
    without genesis allocations."""
    db, pchain, _, owners = store
    with_genesis = [a for a in owners if p_genesis.owned(db, pchain, [a])]
    assert with_genesis and len(with_genesis) < len(owners)
    for group in _groups(owners):
        genesis = p_genesis.owned(db, pchain, group)
        flagged = p_holdings.held_with_flags(db, pchain, group)
        if len(group) == 1 and p_holdings.held(db, pchain, group):
            assert flagged is not None
            assert flagged.held == p_holdings.held(db, pchain, group)
            assert flagged.owns_genesis == bool(genesis)
            assert flagged.chain_time == chain_time(db, pchain)
        else:
            assert flagged is None
        for f in FILTERS:
            found, page = p_holdings.owned_page(db, pchain, group, f, None, 2)
            if any(u.consuming_tx is None for u in genesis):
                assert (found, page) == (genesis, None)
                continue
            assert page == p_holdings.utxo_documents(db, pchain, group, f, None, 2)
            assert found == genesis


def test_the_upgrade_to_schema_26_lists_the_genesis_owners(store: Store) -> None:
    db, pchain, _, owners = store
    before = db.query("SELECT * FROM p_genesis_owners ORDER BY pchain, address, utxo_id")
    # Every owner of every stored genesis UTXO, from its owner list.
    listed = sorted(
        (str(p), a, str(u))
        for p, u, text in db.query("SELECT pchain, utxo_id, addresses FROM p_genesis_utxos")
        for a in str(text).split(",")
    )
    assert before and sorted(tuple(map(str, r)) for r in before) == listed
    with db.transaction() as w:
        w.execute("DROP TABLE p_genesis_owners")
        w.execute("UPDATE meta SET value = '25' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    assert db.query("SELECT * FROM p_genesis_owners ORDER BY pchain, address, utxo_id") == before
    assert any(p_genesis.owned(db, pchain, [a]) for a in owners)
