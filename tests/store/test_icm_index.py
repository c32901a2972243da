"""Operation 16's index of an address's messages (icm_address_messages): a message's time is
its earliest send or receive on the chains a request may see, a page is one index range, and
the writer keeps the index through unwinds and a schema upgrade."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from snowfield.store import icm, writes
from snowfield.store.database import Database, upgrade
from snowfield.store.dump import dump
from snowfield.store.rows import IcmEventRow
from snowfield.testing import open_database
from tests.api.conftest import CHAIN, OTHER_CHAIN, ChainBuilder, add_chains
from tests.conftest import _db_kinds, _url
from tests.store.plans import last_query_plan

A, B = CHAIN, OTHER_CHAIN
X, Y, Z = "0x" + "aa" * 20, "0x" + "bb" * 20, "0x" + "cc" * 20
M1, M2, M3 = ("1" * 64, "2" * 64, "3" * 64)


def _event(chain: int, block: int, ts: int, kind: str, message: str, **kw: str) -> IcmEventRow:
    return IcmEventRow(
        chain, block, 0, 0, "0x" + "00" * 32, ts, 50_000, "0x" + "25" * 20, kind, message, None,
        origin=kw.get("origin"), destination=kw.get("destination"),
    )  # fmt: skip


# chain -> block -> events. M1: sent X->Y on A (t=100), received on B (t=105); M2: only its
# receive on B (t=103); M3: sent X->Z on A (t=110) and sent again by a retry (t=120); events
# that are neither send nor receive name no time.
EVENTS = {
    A: {
        1: [_event(A, 1, 100, "send", M1, origin=X, destination=Y)],
        2: [
            _event(A, 2, 110, "send", M3, origin=X, destination=Z),
            _event(A, 2, 110, "receipt", M1),
        ],
        3: [_event(A, 3, 120, "send", M3, origin=X, destination=Z)],
    },
    B: {
        1: [_event(B, 1, 103, "receive", M2, origin=X, destination=Z)],
        2: [
            _event(B, 2, 105, "receive", M1, origin=X, destination=Y),
            _event(B, 2, 99, "executed", M1),
        ],
    },
}


def _write_chain(db: Database, chain: int) -> None:
    builder = ChainBuilder(db, chain_id=chain)
    bundles = [
        dataclasses.replace(builder._block(n), icm=tuple(events))
        for n, events in sorted(EVENTS[chain].items())
    ]
    writes.write_batch(db, chain, bundles)


def _write(db: Database) -> None:
    for chain in EVENTS:
        _write_chain(db, chain)


@pytest.fixture(params=_db_kinds())
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    with open_database(_url(request.param, tmp_path)) as opened:
        add_chains(opened)
        _write(opened)
        yield opened


def _all(db: Database, address: str, chains: list[int], size: int) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    after = None
    for _ in range(20):
        page = icm.messages_of(db, address, chains, after=after, limit=size)
        out += page.items
        if page.next_key is None:
            return out
        after = page.next_key
    raise AssertionError("paging did not end")


@pytest.mark.parametrize("size", [1, 2, 10])
def test_time_is_the_earliest_visible_event_and_pages_list_each_once(
    db: Database, size: int
) -> None:
    assert _all(db, X, [A, B], size) == [(M3, 110), (M2, 103), (M1, 100)]
    # a request that may see only B (an API key of that chain): its rows alone
    assert _all(db, X, [B], size) == [(M1, 105), (M2, 103)]
    assert _all(db, X, [A], size) == [(M3, 110), (M1, 100)]
    assert _all(db, Y, [A, B], size) == [(M1, 100)]
    assert _all(db, Z, [A, B], size) == [(M3, 110), (M2, 103)]
    assert _all(db, "0x" + "dd" * 20, [A, B], size) == []
    assert _all(db, X, [], size) == []


def test_an_unwind_rebuilds_the_rows_of_its_messages(db: Database) -> None:
    writes.unwind(db, A, 3)  # M3's retry leaves: its first send still dates it
    assert _all(db, X, [A, B], 10) == [(M3, 110), (M2, 103), (M1, 100)]
    writes.unwind(db, A, 1)  # every send on A leaves: M1 dates from its receive on B
    assert _all(db, X, [A, B], 10) == [(M1, 105), (M2, 103)]
    assert _all(db, Z, [A, B], 10) == [(M2, 103)]
    # written again, the index is what an uninterrupted write gives
    _write_chain(db, A)
    assert _all(db, X, [A, B], 10) == [(M3, 110), (M2, 103), (M1, 100)]


def test_the_schema_7_upgrade_builds_the_index_from_the_events(db: Database) -> None:
    before = dump(db)["icm_address_messages"]
    assert len(before) == 8  # X: M1 on A and B, M2, M3; Y: M1 twice; Z: M2, M3
    with db.transaction() as w:
        w.execute("DELETE FROM icm_address_messages")
        upgrade(w, 7)  # its step alone: schema 11 then empties every EVM chain's rows
    assert dump(db)["icm_address_messages"] == before


def test_a_page_is_one_index_range(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "plan.db")) as db:
        add_chains(db)
        _write(db)
        plan = last_query_plan(
            db, lambda db: icm.messages_of(db, X, [A, B], after=(110, M3), limit=10)
        )
        assert "icm_address_messages_by_time" in plan, plan
        assert "icm_address_messages_by_message (address=? AND message_id=?" in plan, plan
        assert "TEMP B-TREE" not in plan and "SCAN" not in plan, plan
