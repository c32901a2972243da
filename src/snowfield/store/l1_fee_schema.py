"""Tables of the L1 validator fee ledger (store/l1_fees.py says what they hold and why)."""

from __future__ import annotations

TABLES: tuple[str, ...] = (
    # Each L1 tx's change of a validation's fee balance, in block and tx order.
    """CREATE TABLE IF NOT EXISTS l1_fee_events (
        pchain TEXT NOT NULL,
        height BIGINT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        validation_id TEXT NOT NULL,
        subnet_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        amount BIGINT NOT NULL,
        PRIMARY KEY (pchain, height, seq))""",
    # The replay's state after block `height`: chain time, excess (u64 as text), the config.
    """CREATE TABLE IF NOT EXISTS l1_fee_ledger (
        pchain TEXT PRIMARY KEY,
        height BIGINT NOT NULL,
        chain_time BIGINT,
        excess TEXT NOT NULL,
        capacity BIGINT NOT NULL,
        target BIGINT NOT NULL,
        min_price BIGINT NOT NULL,
        conversion BIGINT NOT NULL)""",
    # Every validation's balance as the replay leaves it (0: inactive).
    """CREATE TABLE IF NOT EXISTS l1_fee_balances (
        pchain TEXT NOT NULL,
        validation_id TEXT NOT NULL,
        subnet_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        balance BIGINT NOT NULL,
        PRIMARY KEY (pchain, validation_id))""",
    "CREATE INDEX IF NOT EXISTS l1_fee_balances_by_node ON l1_fee_balances (pchain, node_id)",
    "CREATE INDEX IF NOT EXISTS l1_fee_balances_by_subnet ON l1_fee_balances (pchain, subnet_id)",
    """CREATE TABLE IF NOT EXISTS l1_fee_days (
        pchain TEXT NOT NULL,
        scope TEXT NOT NULL,
        member TEXT NOT NULL,
        day BIGINT NOT NULL,
        fees BIGINT NOT NULL,
        payers BIGINT NOT NULL,
        PRIMARY KEY (pchain, scope, member, day))""",
)
