"""Schema 21: a store written by schema 19 gains p_l1_validations (and the webhooks' index by
event type) on upgrade. An L1 validation registered before it is found by its observation, so
its removal still reaches a validator_activity webhook of its subnet."""

from __future__ import annotations

import orjson

from snowfield.store import primary, webhook_outbox
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.primary_rows import L1Change
from snowfield.store.schema import SCHEMA_VERSION
from tests.webhooks.test_validator_activity import (
    L1_EVENTS,
    N2,
    S1,
    V1,
    P,
    _block,
    _hook,
    _meta,
    _network,
    _observe,
)


def test_a_schema_19_store_gains_the_validations_table(db: Database) -> None:
    _network(db)
    _observe(db, (V1, N2, 10**9, 1, 0))  # registered before the upgrade: only observed
    with db.transaction() as w:
        w.execute("DROP TABLE p_l1_validations")
        w.execute("DROP INDEX webhooks_by_type")
        w.execute("UPDATE meta SET value = '19' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    assert db.query("SELECT COUNT(*) FROM p_l1_validations") == [(0,)]
    key, _ = create_key(db, "owner")
    hook = _hook(db, key.id, "http://127.0.0.1:9/x", _meta("subnetId", S1, L1_EVENTS[:3]))
    gone = L1Change("w0", 0, "weight", V1, weight=0)
    primary.write_blocks(
        db, P, [_block(2, [("w0", "SetL1ValidatorWeightTx")], l1_changes=[gone])], 3
    )
    (message,) = webhook_outbox.deliveries(db, hook, None, 9).items
    body = db.query("SELECT body FROM webhook_outbox WHERE message_id = ?", (message.message_id,))
    details = orjson.loads(body[0][0])["event"]["l1ValidatorDetails"]
    assert (details["nodeId"], details["subnetId"], details["weight"]) == (N2, S1, 0)
    db.migrate()  # idempotent
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
