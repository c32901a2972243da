"""Tables of the P-Chain's blocks and validators beyond primary_schema.py's (issue 30, part
2): block details with the ProposerVM header, the indexer's observation of the validators, and
the vertex-by-hash index. Like the rest of the P-Chain's tables they are written forward only:
the P-Chain never reorganises (its index serves accepted blocks only)."""

from __future__ import annotations

# One row a P-Chain block. `block_id` / `parent_id` are the platformvm block's own ids (what
# platform.getBlock answers to); p_blocks.block_id is the container's (the ProposerVM block's,
# what the index API names), kept here as `proposer_id` when the block is wrapped.
P_BLOCK_DETAILS: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS p_block_details (
        pchain TEXT NOT NULL,
        height BIGINT NOT NULL,
        block_id TEXT NOT NULL,
        parent_id TEXT NOT NULL,
        block_type TEXT NOT NULL,
        size BIGINT NOT NULL,
        proposer_id TEXT,
        proposer_parent TEXT,
        proposer_node TEXT,
        proposer_height BIGINT,
        proposer_time BIGINT,
        PRIMARY KEY (pchain, height))""",
    "CREATE INDEX IF NOT EXISTS p_block_details_by_id ON p_block_details (pchain, block_id)",
    "CREATE INDEX IF NOT EXISTS p_block_details_by_proposer_id"
    " ON p_block_details (pchain, proposer_id)",
    # A node's proposals, newest first: one index range.
    "CREATE INDEX IF NOT EXISTS p_block_details_by_node"
    " ON p_block_details (pchain, proposer_node, height)",
)

VALIDATOR_STATE_TABLES: tuple[str, ...] = (
    # Current primary-network stakers by staking tx: uptime (percent text, as the node
    # says it), connected, the node's version as its peer reports it (NULL: not known).
    """CREATE TABLE IF NOT EXISTS p_staker_observations (
        pchain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        uptime TEXT NOT NULL,
        connected SMALLINT NOT NULL,
        version TEXT,
        PRIMARY KEY (pchain, tx_id))""",
    # L1 validations; `weight` 0: removed (the node no longer knows it), `balance` 0: inactive.
    """CREATE TABLE IF NOT EXISTS p_l1_validators (
        pchain TEXT NOT NULL,
        validation_id TEXT NOT NULL,
        subnet_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        weight TEXT NOT NULL,
        balance TEXT NOT NULL,
        start_time BIGINT NOT NULL,
        public_key TEXT NOT NULL,
        remaining_owner TEXT NOT NULL,
        deactivation_owner TEXT NOT NULL,
        height BIGINT NOT NULL,
        PRIMARY KEY (pchain, validation_id))""",
    "CREATE INDEX IF NOT EXISTS p_l1_validators_by_subnet"
    " ON p_l1_validators (pchain, subnet_id, start_time, validation_id)",
    # The current supply (platform.getCurrentSupply) and the primary network's current stake
    # (its validators' and delegators' weights in platform.getCurrentValidators).
    """CREATE TABLE IF NOT EXISTS p_supply (
        pchain TEXT PRIMARY KEY,
        supply TEXT NOT NULL,
        stake TEXT NOT NULL,
        height BIGINT NOT NULL)""",
    # Validators of one subnet (or its delegators) in start order: one index range a page.
    # Keyed by the expression `subnet_id || ':' || kind` (the query names it exactly), so that
    # the planner never prefers it for the reads that filter on subnet and kind by node
    # (operation 12's current stakers: the node's range of p_stakers_by_node is smaller).
    "CREATE INDEX IF NOT EXISTS p_stakers_by_role"
    " ON p_stakers (pchain, (subnet_id || ':' || kind), start_time, tx_id)",
)

# A vertex by its hash is one index lookup.
NETWORK_INDEXES: tuple[str, ...] = (
    "CREATE INDEX IF NOT EXISTS x_vertices_by_id ON x_vertices (xchain, vertex_id)",
)

# Each validation's entry in the validators list (store/validator_documents.py), as the writer
# last rendered it, and the chain times [valid_from, valid_until) at which it holds. An entry
# whose window misses the chain time is rendered from the rows by the reader and again by the
# writer; `valid_until` 0 marks one to render again (an observation changed its figures).
P_VALIDATOR_DOCUMENTS: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS p_validator_documents (
        pchain TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        valid_from BIGINT NOT NULL,
        valid_until BIGINT NOT NULL,
        status TEXT NOT NULL,
        document TEXT NOT NULL,
        PRIMARY KEY (pchain, tx_id))""",
    # The entries a new chain time or an observation leaves to render again: index ranges.
    "CREATE INDEX IF NOT EXISTS p_validator_documents_until"
    " ON p_validator_documents (pchain, valid_until)",
    "CREATE INDEX IF NOT EXISTS p_validator_documents_from"
    " ON p_validator_documents (pchain, valid_from)",
    "CREATE INDEX IF NOT EXISTS p_validator_documents_by_status"
    " ON p_validator_documents (pchain, status)",
    # A counter that moves in every transaction that may change a validators list's answer
    # (blocks, a chain time, an observation): the data service keeps answers by it
    # (api/primary/validator_pages.py).
    """CREATE TABLE IF NOT EXISTS p_validator_generation (
        pchain TEXT PRIMARY KEY,
        generation BIGINT NOT NULL)""",
)

# The generation's move, in the transaction of the change.
BUMP_GENERATION = (
    "INSERT INTO p_validator_generation (pchain, generation) VALUES (?, 1)"
    " ON CONFLICT (pchain) DO UPDATE SET generation = p_validator_generation.generation + 1"
)

# Schema 25 on an older store: every validation gets an entry to render (an empty window),
# which the writer renders at its next chain time (validator_documents.refresh); until then
# the reader renders them from the rows.
P_VALIDATOR_DOCUMENTS_FILL = (
    "INSERT INTO p_validator_documents (pchain, tx_id, valid_from, valid_until, status,"
    " document) SELECT pchain, tx_id, 0, 0, '', '' FROM p_stakers WHERE kind <> 'DELEGATOR'"
    " ON CONFLICT (pchain, tx_id) DO NOTHING"
)
