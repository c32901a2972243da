"""Schema 22 on a store of schema 19: the C-Chain's atomic txs and the X-Chain's index are read
again (their rows go; c_atomic_txs gains `fee`), and the P-Chain genesis tables appear; on
SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from snowfield.store import c_atomic, p_genesis, x_chain
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.testing import open_database
from tests.conftest import _db_kinds, _url

_OLD_C_TXS = """CREATE TABLE c_atomic_txs (
    cchain TEXT NOT NULL, tx_id TEXT NOT NULL, tx_type TEXT NOT NULL, height BIGINT NOT NULL,
    block_id TEXT NOT NULL, timestamp BIGINT NOT NULL, chain TEXT NOT NULL,
    tx_bytes TEXT NOT NULL, PRIMARY KEY (cchain, tx_id))"""


@pytest.mark.parametrize("kind", _db_kinds())
def test_a_store_of_schema_19_reads_c_and_x_again(
    kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with open_database(_url(kind, tmp_path_factory.mktemp("s21"))) as db:
        with db.transaction() as w:
            w.execute("DROP TABLE c_atomic_txs")
            w.execute(_OLD_C_TXS)
            w.execute(
                "INSERT INTO c_atomic_txs VALUES ('C', 't', 'ExportTx', 3, 'b', 1, 'P', '0x')"
            )
            w.execute("INSERT INTO c_atomic_checkpoints (cchain, next_index) VALUES ('C', 4)")
            w.execute(
                "INSERT INTO x_tx_checkpoints (xchain, index_name, next_index)"
                " VALUES ('X', 'tx', 9)"
            )
            for table in ("p_genesis_utxos", "p_genesis_probes", "p_genesis_cursor"):
                w.execute(f"DROP TABLE {table}")
            w.execute("UPDATE meta SET value = '19' WHERE key = 'schema_version'")
        db.migrate()
        assert db.meta("schema_version") == str(SCHEMA_VERSION)
        assert c_atomic.next_index(db, "C") == 0 and x_chain.next_index(db, "X") == 0
        assert db.query("SELECT COUNT(*) FROM c_atomic_txs")[0][0] == 0
        assert db.query("SELECT fee FROM c_atomic_txs") == []
        assert p_genesis.owned(db, "P", ["local1x"]) == []
        assert p_genesis.unprobed(db, "P", None) is None  # no P block yet
