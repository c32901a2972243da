"""The table of validator_activity webhooks (schema 21; store/webhook_validators.py writes it)."""

from __future__ import annotations

# Each L1 validation the blocks registered (RegisterL1ValidatorTx, ConvertSubnetToL1Tx), with
# its node and subnet: the later txs name the validation id alone, and a webhook filters by
# node and subnet. `weight`: its latest (SetL1ValidatorWeightTx); `disabled_height`: the last
# DisableL1ValidatorTx's block (a balance that ran out is told apart from a disabling).
L1_VALIDATIONS = """CREATE TABLE IF NOT EXISTS p_l1_validations (
    pchain TEXT NOT NULL,
    validation_id TEXT NOT NULL,
    subnet_id TEXT NOT NULL,
    node_id TEXT NOT NULL,
    weight TEXT NOT NULL,
    tx_id TEXT NOT NULL,
    height BIGINT NOT NULL,
    disabled_height BIGINT,
    PRIMARY KEY (pchain, validation_id))"""
# The P-Chain writers look up the active webhooks of one event type at every batch.
WEBHOOKS_BY_TYPE = (
    "CREATE INDEX IF NOT EXISTS webhooks_by_type ON webhooks (event_type, status, network)"
)
VALIDATOR_WEBHOOK_TABLES: tuple[str, ...] = (L1_VALIDATIONS, WEBHOOKS_BY_TYPE)
