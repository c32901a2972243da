"""Schema 15: a store written before only the messenger's events counted loses the events of
other emitters (and operation 16's rows derived from them), and gains the ICM message counts of
the events that remain, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from snowfield.formats.icm import MESSENGER_ADDRESSES
from snowfield.store import icm, icm_counts, writes
from snowfield.store.database import Database
from snowfield.store.schema import MESSENGERS_AT_15, SCHEMA_VERSION
from snowfield.testing import open_database
from tests.api.conftest import CHAIN, ChainBuilder, add_chains
from tests.conftest import _db_kinds, _url
from tests.store.test_icm_index import _event

REAL, FORGER = MESSENGER_ADDRESSES[0], "0x" + "25" * 20
X, Y = "0x" + "aa" * 20, "0x" + "bb" * 20
PEER = "11111111111111111111111111111111LpoYY"


def test_the_migration_knows_todays_messengers() -> None:
    assert MESSENGERS_AT_15 == MESSENGER_ADDRESSES


@pytest.fixture(params=_db_kinds())
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    with open_database(_url(request.param, tmp_path)) as opened:
        add_chains(opened)
        yield opened


def _send(block: int, message: str, contract: str) -> object:
    event = _event(CHAIN, block, 1_000 + block, "send", message, origin=X, destination=Y)
    return dataclasses.replace(event, contract=contract, destination_chain=PEER)


def test_an_older_store_loses_forged_events_and_gains_counts(db: Database) -> None:
    builder = ChainBuilder(db, chain_id=CHAIN)
    bundles = [
        dataclasses.replace(builder._block(1), icm=(_send(1, "1" * 64, REAL),)),
        dataclasses.replace(builder._block(2), icm=(_send(2, "2" * 64, FORGER),)),
    ]
    writes.write_batch(db, CHAIN, bundles)
    assert [m for m, _ in icm.messages_of(db, X, [CHAIN]).items] == ["2" * 64, "1" * 64]
    with db.transaction() as w:  # the store as schema 14 left it
        w.execute("DROP TABLE icm_rollups")
        w.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    assert db.query("SELECT contract FROM icm_events") == [(REAL,)]
    assert [m for m, _ in icm.messages_of(db, X, [CHAIN]).items] == ["1" * 64]
    rows = db.query("SELECT span, src, dest, kind, messages FROM icm_rollups ORDER BY span")
    assert rows == [(span, "", PEER, "send", 1) for span in ("day", "hour", "month", "week")]
    with db.transaction() as w:  # the upgrade's counts are a rebuild's
        icm_counts.rebuild(w)
    assert db.query("SELECT span, src, dest, kind, messages FROM icm_rollups ORDER BY span") == rows
