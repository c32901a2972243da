"""The validators list's stored entries (store/validator_documents.py): at every chain time the
writer records, across a validation's and its delegations' starts and ends, an observation, a
reward and an upgrade from schema 24, every validation's stored entry holds at the chain time
and is byte for byte the entry rendered from the rows; the reader declines (renders from the
rows) whenever one does not hold. On SQLite and PostgreSQL."""

from __future__ import annotations

import orjson
import pytest

from snowfield.store import primary, validator_documents, validator_state
from snowfield.store.database import Database
from snowfield.store.primary_queries import chain_time
from snowfield.store.primary_rows import BlockRows, StakerRow, TxRow, UtxoRow
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.validator_entries import entries
from snowfield.store.validator_queries import PRIMARY_SUBNET, StakerFilter, measured
from snowfield.store.validator_state import Observation
from snowfield.testing import open_database
from tests.conftest import _db_kinds, _url

P = PRIMARY_SUBNET  # the P-Chain's id is the primary network's subnet id
AVAX = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
OWNER = "local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
PRIMARY = StakerFilter(("VALIDATOR",), PRIMARY_SUBNET)
NODE_A, NODE_B = (
    "NodeID-6Jswqk47s9PUcyCc88MMVwzgvHQxfLnA",
    "NodeID-BcktgV7EjHmxEwQDFFhhztzNqZnE4rMt",
)


def _staker(tx: str, kind: str, node: str, start: int, end: int, amount: int) -> StakerRow:
    fee = None if kind == "DELEGATOR" else 20_000
    return StakerRow(tx, kind, node, P, start, end, amount, (OWNER,), (OWNER,), fee)


def _block(height: int, time: int, stakers: list[StakerRow]) -> BlockRows:
    rows = BlockRows(height, f"block{height}", f"block{height - 1}", time)
    for i, s in enumerate(stakers):
        tx_type = "AddPermissionlessDelegatorTx" if s.kind == "DELEGATOR" else (
            "AddPermissionlessValidatorTx")  # fmt: skip
        details = {"nodeId": s.node_id, "subnetId": P, "startTimestamp": s.start,
                   "endTimestamp": s.end, "rewardAddresses": [OWNER]}  # fmt: skip
        rows.txs.append(TxRow(s.tx_id, tx_type, i, "", details, (OWNER,)))
        rows.stakers.append(s)
    return rows


def _from_rows(db: Database) -> dict[str, bytes]:
    """Every validation's entry as the reader renders it from the rows now."""
    kinds = StakerFilter(validator_documents.VALIDATION_KINDS)
    m = measured(db, P, kinds, desc=False, after=None, limit=None)
    return {e.view.tx_id: orjson.dumps(e.document) for e in entries(m)}


def _assert_kept(db: Database) -> None:
    """Every stored entry holds at the chain time and equals the rows' rendering; the listing
    reads them."""
    now = chain_time(db, P) or 0
    stored = {
        str(r[0]): (int(r[1]), int(r[2]), str(r[3]))
        for r in db.query(
            "SELECT tx_id, valid_from, valid_until, document FROM p_validator_documents"
            " WHERE pchain = ?",
            (P,),
        )
    }
    fresh = _from_rows(db)
    assert set(stored) == set(fresh)
    for tx, document in fresh.items():
        since, until = stored[tx][:2]
        assert since <= now < until, (tx, now, stored[tx][:2])
        assert stored[tx][2].encode() == document, tx
    page = validator_documents.page(db, P, PRIMARY, desc=False, after=None, limit=100)
    assert page is not None
    assert [r[2].encode() for r in page] == [fresh[r[1]] for r in page]


def _status(db: Database, tx: str) -> str:
    return str(orjson.loads(_from_rows(db)[tx])["validationStatus"])


@pytest.fixture
def staked(db: Database) -> Database:
    """Validator v1 (1000-5000) with delegations d1 (1500-3000) and d2 (2000-4000); v2 on
    another node, 6000-9000."""
    primary.record_network(db, primary.PrimaryNetwork(P, 12345, "local", None, None, AVAX))
    block = _block(1, 1000, [
        _staker("v1", "VALIDATOR", NODE_A, 1000, 5000, 2_000 * 10**9),
        _staker("d1", "DELEGATOR", NODE_A, 1500, 3000, 25 * 10**9),
        _staker("d2", "DELEGATOR", NODE_A, 2000, 4000, 30 * 10**9),
        _staker("v2", "VALIDATOR", NODE_B, 6000, 9000, 3_000 * 10**9),
    ])  # fmt: skip
    potential = {"v1": 500, "d1": 70, "d2": 90, "v2": 600}
    primary.write_blocks(db, P, [block], 1, potential=potential)
    return db


def test_entries_hold_across_the_chain_times_the_writer_records(staked: Database) -> None:
    db = staked
    _assert_kept(db)  # at the last block's time: no chain time recorded yet
    for now, v1 in ((900, "pending"), (1200, "active"), (1500, "active"), (2500, "active"),
                    (3500, "active"), (5000, "completed"), (7000, "completed")):  # fmt: skip
        primary.record_chain_time(db, P, now)
        _assert_kept(db)
        assert _status(db, "v1") == v1
    primary.record_chain_time(db, P, 2500)  # back in time, too
    _assert_kept(db)
    counted = orjson.loads(_from_rows(db)["v1"])
    assert (counted["delegatorCount"], counted["amountDelegated"]) == (2, str(55 * 10**9))


def test_the_reader_declines_an_entry_out_of_its_window(staked: Database) -> None:
    db = staked
    primary.record_chain_time(db, P, 1200)
    _assert_kept(db)
    with db.transaction() as w:  # the time moves without the writer's refresh
        w.execute("UPDATE primary_networks SET chain_time = 2500 WHERE pchain = ?", (P,))
    assert validator_documents.page(db, P, PRIMARY, desc=False, after=None, limit=100) is None
    assert validator_documents.refresh_store(db, P) > 0
    _assert_kept(db)


def test_an_observation_renders_the_active_entries_again(staked: Database) -> None:
    db = staked
    primary.record_chain_time(db, P, 2500)
    seen = [Observation("v1", NODE_A, "87.5", True, "avalanchego/1.13.0")]
    validator_state.record(db, P, seen, [], (10**18, 4_000 * 10**9, 7))
    # Until the observer's refresh, the active entries are not read (their figures moved).
    assert validator_documents.page(db, P, PRIMARY, desc=False, after=None, limit=100) is None
    validator_documents.refresh_store(db, P)
    _assert_kept(db)
    entry = orjson.loads(_from_rows(db)["v1"])
    assert entry["uptimePerformance"] == 87.5 and entry["avalancheGoVersion"]
    assert entry["stakePercentage"] == round((2_000 + 55) * 100 / 4_000, 4)


def test_a_reward_and_an_end_render_the_node_again(staked: Database) -> None:
    db = staked
    primary.record_chain_time(db, P, 2500)
    ending = BlockRows(2, "block2", "block1", 5001)
    ending.txs.append(TxRow("r1", "RewardValidatorTx", 0, "", {}, ()))
    ending.ended.append(("v1", "r1"))
    paid = UtxoRow("u1", "v1", 3, AVAX, 777, (OWNER,), 1, 0, None, False, P, P, "0x00",
                   "VALIDATOR")  # fmt: skip
    primary.write_blocks(db, P, [ending], 2, rewards=[(2, paid)])
    _assert_kept(db)  # at 2500 still: ended all the same
    entry = orjson.loads(_from_rows(db)["v1"])
    assert entry["validationStatus"] == "completed"
    assert entry["rewards"]["validationRewardAmount"] == "777"
    assert entry["rewards"]["rewardTxHash"] == "r1"


@pytest.mark.parametrize("kind", _db_kinds())
def test_a_store_of_schema_24_renders_its_entries(
    kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with open_database(_url(kind, tmp_path_factory.mktemp("s24"))) as db:
        primary.record_network(db, primary.PrimaryNetwork(P, 12345, "local", None, None, AVAX))
        block = _block(1, 1000, [
            _staker("v1", "VALIDATOR", NODE_A, 1000, 5000, 2_000 * 10**9),
            _staker("d1", "DELEGATOR", NODE_A, 1500, 3000, 25 * 10**9),
        ])  # fmt: skip
        primary.write_blocks(db, P, [block], 1, potential={"v1": 5, "d1": 1})
        with db.transaction() as w:
            w.execute("DROP TABLE p_validator_documents")
            w.execute("UPDATE meta SET value = '24' WHERE key = 'schema_version'")
        db.migrate()
        assert db.meta("schema_version") == str(SCHEMA_VERSION)
        rows = db.query("SELECT tx_id, valid_until FROM p_validator_documents")
        assert [(str(r[0]), int(r[1])) for r in rows] == [("v1", 0)]  # to render
        assert validator_documents.page(db, P, PRIMARY, desc=False, after=None, limit=10) is None
        primary.record_chain_time(db, P, 2000)  # the writer's next sync renders it
        _assert_kept(db)


def test_a_batch_written_again_leaves_the_entries_as_the_rows(staked: Database) -> None:
    """The P-Chain index never unwinds (store/primary_schema.py); what comes closest is a batch
    written again after a restart (its rows already there): the entries stay the rows'."""
    db = staked
    primary.record_chain_time(db, P, 2500)
    before = _from_rows(db)
    again = _block(1, 1000, [
        _staker("v1", "VALIDATOR", NODE_A, 1000, 5000, 2_000 * 10**9),
        _staker("d1", "DELEGATOR", NODE_A, 1500, 3000, 25 * 10**9),
    ])  # fmt: skip
    primary.write_blocks(db, P, [again], 1, potential={"v1": 500, "d1": 70})
    _assert_kept(db)
    assert _from_rows(db) == before
