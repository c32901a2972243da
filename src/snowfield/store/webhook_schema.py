"""The webhook tables (schema 12): subscriptions, their addresses, one shared secret per API key,
and the durable outbox the indexer's writer fills in the same transaction as the indexed block.

Conventions as schema.py: times are Unix milliseconds (BIGINT) where latency is measured,
booleans SMALLINT 0/1, JSON documents TEXT. The outbox keeps its delivered rows: they are the
delivery log (GET /v1/webhooks/{id}/deliveries).
"""

from __future__ import annotations

# One webhook of one API key (`owner`: api_keys.id). `chain_ref`: the `chainId` the client gave
# (echoed back as given); `evm_chain`: the EVM chain id it resolved to (address_activity), the
# key the writer matches on. `metadata`: the event type's metadata object, without the
# addresses, which live in webhook_addresses. `failed_first`: messages that failed both first
# attempts; `queued`: messages that ever entered the retry queue (the free tier's rules).
WEBHOOKS = """CREATE TABLE IF NOT EXISTS webhooks (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    event_type TEXT NOT NULL,
    url TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    chain_ref TEXT NOT NULL,
    evm_chain BIGINT,
    network TEXT,
    status TEXT NOT NULL,
    created BIGINT NOT NULL,
    include_logs SMALLINT NOT NULL,
    include_internal SMALLINT NOT NULL,
    metadata TEXT NOT NULL,
    failed_first BIGINT NOT NULL,
    queued BIGINT NOT NULL,
    deactivated_reason TEXT)"""
WEBHOOKS_BY_OWNER = "CREATE INDEX IF NOT EXISTS webhooks_by_owner ON webhooks (owner, id)"
WEBHOOKS_BY_CHAIN = "CREATE INDEX IF NOT EXISTS webhooks_by_chain ON webhooks (evm_chain, status)"

# The addresses (or P-Chain keys, node ids) a webhook follows; lower-case for EVM addresses.
WEBHOOK_ADDRESSES = """CREATE TABLE IF NOT EXISTS webhook_addresses (
    webhook_id TEXT NOT NULL,
    address TEXT NOT NULL,
    PRIMARY KEY (webhook_id, address))"""
WEBHOOK_ADDRESSES_BY_ADDRESS = (
    "CREATE INDEX IF NOT EXISTS webhook_addresses_by_address"
    " ON webhook_addresses (address, webhook_id)"
)

# The one shared secret of an API key (generateOrRotateSharedSecret): every webhook of the key
# is signed with it, as the real service signs per account.
WEBHOOK_SECRETS = """CREATE TABLE IF NOT EXISTS webhook_secrets (
    owner TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    created BIGINT NOT NULL)"""

# The outbox: one row per message. `message_id` is derived from what it reports (webhook, chain,
# block hash, transaction, kind), so a batch written again after a crash inserts nothing new and
# a message keeps its id across retries and restarts. `body` is the exact JSON that is signed and
# sent. `kind`: event | removed. `state`: pending | delivered | failed | retracted. `next_at`:
# when the next attempt is due (ms); `lease_until`: a worker's claim, which lapses when the
# worker dies (kill -9), so another (or the restarted one) sends the message again.
WEBHOOK_OUTBOX = """CREATE TABLE IF NOT EXISTS webhook_outbox (
    message_id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL,
    chain_id BIGINT NOT NULL,
    block_number BIGINT NOT NULL,
    block_hash TEXT NOT NULL,
    tx_index BIGINT NOT NULL,
    block_timestamp BIGINT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    created BIGINT NOT NULL,
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    next_at BIGINT NOT NULL,
    lease_until BIGINT NOT NULL,
    last_status BIGINT,
    last_error TEXT,
    last_latency_ms BIGINT,
    delivered_at BIGINT)"""
OUTBOX_DUE = "CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (state, next_at)"
OUTBOX_BY_WEBHOOK = (
    "CREATE INDEX IF NOT EXISTS webhook_outbox_by_webhook"
    " ON webhook_outbox (webhook_id, block_number, tx_index, message_id)"
)
OUTBOX_BY_BLOCK = (
    "CREATE INDEX IF NOT EXISTS webhook_outbox_by_block ON webhook_outbox (chain_id, block_number)"
)

WEBHOOK_TABLES: tuple[str, ...] = (
    WEBHOOKS,
    WEBHOOKS_BY_OWNER,
    WEBHOOKS_BY_CHAIN,
    WEBHOOK_ADDRESSES,
    WEBHOOK_ADDRESSES_BY_ADDRESS,
    WEBHOOK_SECRETS,
    WEBHOOK_OUTBOX,
    OUTBOX_DUE,
    OUTBOX_BY_WEBHOOK,
    OUTBOX_BY_BLOCK,
)
