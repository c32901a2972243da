"""The SQLite plans of operations 11 and 12's reads, pinned: an address's staking page is one
index range of p_tx_addresses with each row's p_staking_txs row found by its position (no
sort, no scan: flat in the store's size); current stakers come from the node's index range or
the owner's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from snowfield.store import primary, primary_queries
from snowfield.store.database import Database
from snowfield.testing import open_database
from tests.store.plans import last_query_plan

PCHAIN = "11111111111111111111111111111111LpoYY"
ADDRESS = "local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


def _staking(addresses: list[str] | None, types: list[str] | None) -> Callable[[Database], Any]:
    return lambda db: primary_queries.active_staking(
        db, PCHAIN, addresses=addresses, tx_types=types, start=None, end=None, desc=True,
        after=(1, 1, 1), limit=10,
    )  # fmt: skip


def test_staking_pages_are_index_ranges(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "plan.db")) as db:
        primary.record_network(db, primary.PrimaryNetwork(PCHAIN, 12345, "local", None, None, "A"))
        by_address = last_query_plan(db, _staking([ADDRESS], None))
        assert "p_tx_addresses_by_time (pchain=? AND address=?" in by_address, by_address
        assert "p_staking_txs_1 (pchain=? AND timestamp=? AND height=? AND tx_index=?)" in (
            by_address
        ), by_address
        assert "TEMP B-TREE" not in by_address and "SCAN" not in by_address, by_address
        typed = last_query_plan(db, _staking([ADDRESS], ["AddPermissionlessDelegatorTx"]))
        assert "p_txs_1 (pchain=? AND tx_id=?)" in typed and "SCAN" not in typed, typed
        listing = last_query_plan(db, _staking(None, None))
        assert "p_staking_txs_1 (pchain=?" in listing, listing
        assert "TEMP B-TREE" not in listing and "SCAN" not in listing, listing


def _stakers(node_ids: list[str] | None) -> Callable[[Database], Any]:
    return lambda db: primary_queries.current_stakers(
        db, PCHAIN, addresses=None if node_ids else [ADDRESS], node_ids=node_ids, desc=False,
        after=None, limit=10,
    )  # fmt: skip


def test_current_stakers_come_from_an_index_range(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "plan.db")) as db:
        primary.record_network(db, primary.PrimaryNetwork(PCHAIN, 12345, "local", None, None, "A"))
        primary.record_chain_time(db, PCHAIN, 1000)
        by_node = last_query_plan(db, _stakers(["NodeID-x"]))
        assert "p_stakers_by_node" in by_node, by_node
        by_owner = last_query_plan(db, _stakers(None))
        assert "p_staker_owners_1 (pchain=? AND address=?)" in by_owner, by_owner
        assert "p_stakers_1 (pchain=? AND tx_id=?)" in by_owner, by_owner
        assert "TEMP B-TREE" not in by_owner and "SCAN" not in by_owner, by_owner
