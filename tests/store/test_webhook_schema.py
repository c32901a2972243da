"""Schema 12: a store written by schema 11 gains the webhook tables on upgrade, and the writer
and unwind work on it at once."""

from __future__ import annotations

from snowfield.store import webhook_outbox, webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.webhooks import WebhookRow
from snowfield.store.writes import unwind
from tests.api.conftest import CAROL, CHAIN, ChainBuilder, add_chains

_TABLES = ("webhook_outbox", "webhook_secrets", "webhook_addresses", "webhooks")


def test_a_schema_11_store_gains_the_webhook_tables(db: Database) -> None:
    add_chains(db)
    builder = ChainBuilder(db)
    builder.add(2)
    with db.transaction() as w:  # what schema 11 had: none of the webhook tables
        for table in _TABLES:
            w.execute(f"DROP TABLE {table}")
        w.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    for table in _TABLES:
        assert db.query(f"SELECT COUNT(*) FROM {table}") == [(0,)], table
    key, _ = create_key(db, "owner")
    draft = WebhookRow(
        "", key.id, "address_activity", "http://127.0.0.1:9/x", "", "", str(CHAIN), CHAIN, None,
        "active", 0, False, False,
    )  # fmt: skip
    hook = webhooks.create_webhook(db, draft, [CAROL])
    builder.add(2)  # blocks 3 and 4: a message each
    assert [d.block_number for d in webhook_outbox.deliveries(db, hook.id, None, 9).items] == [4, 3]
    unwind(db, CHAIN, 4)  # never tried: retracted without a trace
    assert [d.block_number for d in webhook_outbox.deliveries(db, hook.id, None, 9).items] == [3]
    db.migrate()  # idempotent
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
