"""The node's validators as the indexer observes them (store/validator_state.py): each
observation replaces the last, a validation the node stops listing stays at weight 0 and is no
longer listed, an inactive one only when asked; and the upgrade that adds these tables."""

from __future__ import annotations

from pathlib import Path

from snowfield.store import primary, primary_blocks, validator_state
from snowfield.store.database import Database
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.validator_queries import StakerFilter, paid_rewards, stakers
from snowfield.store.validator_state import L1Validator, Observation
from snowfield.testing import open_database
from tests.store.plans import last_query_plan

P = "11111111111111111111111111111111LpoYY"
OWNER = {"addresses": ["P-local1abc"], "threshold": 1}


def _l1(n: int, balance: int, height: int, subnet: str = "subnetA") -> L1Validator:
    return L1Validator(
        f"validation{n}", subnet, f"NodeID-{n}", 100 + n, balance, 1_000 + n, "0xab", OWNER,
        OWNER, height,
    )  # fmt: skip


def _listed(db: Database, **kw: object) -> list[str]:
    args = {"subnet_id": None, "node_id": None, "validation_id": None, "include_inactive": False}
    args.update(kw)
    items, _ = validator_state.l1_validators(db, P, after=None, limit=100, **args)  # type: ignore[arg-type]
    return [v.validation_id for v in items]


def test_observations_replace_and_l1_validations_are_kept_at_weight_zero(db: Database) -> None:
    seen = [Observation("tx1", "NodeID-1", "99.5000", True, "avalanchego/1.13.0")]
    validator_state.record(db, P, seen, [_l1(1, 5, 10), _l1(2, 0, 10), _l1(3, 7, 10)], (9, 4, 10))
    assert validator_state.observations(db, P, ["tx1", "tx2"]) == {"tx1": seen[0]}
    assert validator_state.supply(db, P) == (9, 4, 10)
    assert _listed(db) == ["validation1", "validation3"]
    assert _listed(db, include_inactive=True) == ["validation1", "validation2", "validation3"]
    assert _listed(db, node_id="NodeID-3") == ["validation3"]
    # The next observation: validation 3 is gone (removed), validation 1 spent its balance.
    later = [Observation("tx2", "NodeID-2", "80.0000", False, None)]
    validator_state.record(db, P, later, [_l1(1, 0, 12), _l1(2, 0, 12)], (9, 5, 12))
    assert validator_state.observations(db, P, ["tx1", "tx2"]) == {"tx2": later[0]}
    assert _listed(db) == []
    assert _listed(db, include_inactive=True) == ["validation1", "validation2"]
    assert validator_state.l1_height(db, P) == 12
    weights = db.query("SELECT validation_id, weight FROM p_l1_validators ORDER BY validation_id")
    assert [tuple(r) for r in weights] == [
        ("validation1", "101"), ("validation2", "102"), ("validation3", "0"),
    ]  # fmt: skip


def test_paging_l1_validators_by_subnet_and_start(db: Database) -> None:
    validators = [_l1(n, 1, 5, subnet=f"subnet{n % 2}") for n in range(7)]
    validator_state.record(db, P, [], validators, None)
    seen, after = [], None
    for _ in range(10):
        items, after = validator_state.l1_validators(
            db, P, subnet_id=None, node_id=None, validation_id=None, include_inactive=False,
            after=after, limit=3,
        )  # fmt: skip
        seen += [v.validation_id for v in items]
        if after is None:
            break
    expected = sorted(validators, key=lambda v: (v.subnet_id, v.start_time, v.validation_id))
    assert seen == [v.validation_id for v in expected]


def test_upgrade_to_14_adds_the_tables(db: Database) -> None:
    with db.transaction() as w:
        for table in ("p_block_details", "p_staker_observations", "p_l1_validators", "p_supply"):
            w.execute(f"DROP TABLE {table}")
        w.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    validator_state.record(db, P, [], [_l1(1, 1, 3)], (1, 1, 3))
    assert _listed(db) == ["validation1"]
    # Blocks indexed before carry no details: the block operations do not list them.
    assert primary_blocks.block(db, P, "1") is None
    db.migrate()  # idempotent


def test_a_validators_page_is_one_index_range(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "plan.db")) as db:
        primary.record_network(db, primary.PrimaryNetwork(P, 12345, "local", None, None, "A"))
        f = StakerFilter(("VALIDATOR",), P)
        for after in (None, (5, "tx")):
            plan = last_query_plan(
                db, lambda d, a=after: stakers(d, P, f, desc=True, after=a, limit=11)
            )
            assert "p_stakers_by_role" in plan and "TEMP B-TREE" not in plan, plan
        delegators = StakerFilter(("DELEGATOR",), P, statuses=("active",))
        plan = last_query_plan(
            db, lambda d: stakers(d, P, delegators, desc=False, after=None, limit=11)
        )
        assert "p_stakers_by_role" in plan and "TEMP B-TREE" not in plan, plan


def test_paid_rewards_are_found_by_staking_tx(tmp_path: Path) -> None:
    """By owner or by node, the reward UTXOs are read by their staking txs (the owner's or
    node's range), never by walking the chain's UTXOs."""
    with open_database(str(tmp_path / "plan.db")) as db:
        for owners, nodes in ((["local1abc"], None), (None, ["NodeID-x"])):
            plan = last_query_plan(
                db,
                lambda d, o=owners, n=nodes: paid_rewards(
                    d, P, owners=o, node_ids=n, desc=True, after=None, limit=11
                ),
            )
            assert "p_utxos_by_tx (pchain=? AND tx_id=?)" in plan and "SCAN" not in plan, plan


def test_delegators_of_an_owner_or_node_come_from_its_range(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "plan.db")) as db:
        for f in (
            StakerFilter(("DELEGATOR",), P, owners=("local1abc",)),
            StakerFilter(("DELEGATOR",), P, node_ids=("NodeID-x",)),
        ):
            plan = last_query_plan(
                db, lambda d, f=f: stakers(d, P, f, desc=True, after=None, limit=11)
            )
            assert "p_stakers_by_role" not in plan and "SCAN" not in plan, plan
