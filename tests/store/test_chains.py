"""The chains table: keyed by blockchain id, the EVM chain id a column; the upgrade from the
store that keyed chains by EVM chain id."""

from __future__ import annotations

from snowfield.store import chain_queries
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.store.writes import upsert_chain

C_CHAIN = "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"
V2_CHAINS = """CREATE TABLE chains (
    chain_id BIGINT PRIMARY KEY, name TEXT NOT NULL, network TEXT NOT NULL,
    rpc_url TEXT NOT NULL, ws_url TEXT, blockchain_id TEXT, subnet_id TEXT, vm_id TEXT,
    description TEXT NOT NULL, explorer_url TEXT, token_name TEXT NOT NULL,
    token_symbol TEXT NOT NULL, token_decimals BIGINT NOT NULL, token_logo TEXT,
    chain_logo TEXT, features TEXT NOT NULL, private SMALLINT NOT NULL, multicall TEXT)"""


def test_a_chain_is_keyed_by_blockchain_id_and_found_by_either_id(db: Database) -> None:
    upsert_chain(db, ChainRow(43114, "C-Chain", "mainnet", "http://a", blockchain_id=C_CHAIN))
    upsert_chain(db, ChainRow(31337, "anvil", "local", "http://b"))
    keys = db.query("SELECT blockchain_id, derived_id, chain_id FROM chains ORDER BY chain_id")
    assert [tuple(r) for r in keys] == [("evm-31337", 1, 31337), (C_CHAIN, 0, 43114)]
    found = chain_queries.find_chain(db, C_CHAIN)
    assert found is not None and found.chain_id == 43114 and found.blockchain_id == C_CHAIN
    anvil = chain_queries.find_chain(db, "31337")
    assert anvil is not None and anvil.blockchain_id is None  # a derived key is no real id
    # The node names the real id later: the chain is re-keyed, not duplicated.
    upsert_chain(db, ChainRow(31337, "anvil", "local", "http://b", blockchain_id="abc"))
    assert [c.blockchain_id for c in chain_queries.list_chains(db)] == ["abc", C_CHAIN]


def test_upgrade_from_chains_keyed_by_evm_chain_id(db: Database) -> None:
    with db.transaction() as w:
        w.execute("DROP TABLE chains")
        w.execute(V2_CHAINS)
        for chain_id, blockchain_id in ((43114, C_CHAIN), (31337, None)):
            w.execute(
                "INSERT INTO chains VALUES (?, 'n', 'mainnet', 'http://x', NULL, ?, NULL, NULL,"
                " '', NULL, 'Avalanche', 'AVAX', 18, NULL, NULL, 'nftIndexing', 0, NULL)",
                (chain_id, blockchain_id),
            )
        w.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.migrate()
    assert db.meta("schema_version") == str(SCHEMA_VERSION)
    chains = chain_queries.list_chains(db)
    assert [(c.chain_id, c.blockchain_id) for c in chains] == [(31337, None), (43114, C_CHAIN)]
    assert chains[1].features == ("nftIndexing",) and chains[1].token_symbol == "AVAX"
    assert chain_queries.find_chain(db, "evm-31337") is not None
    db.migrate()  # idempotent
    assert len(chain_queries.list_chains(db)) == 2
