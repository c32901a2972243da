"""The indexer against a real devnet with demo traffic: every row checked against what the node
says through web3.py (a client we did not write)."""

from __future__ import annotations

import sqlite3
import time
from collections import Counter

import httpx
import pytest
from web3 import Web3

from snowfield.indexer.extract.transfers import TRANSFER, TRANSFER_BATCH, TRANSFER_SINGLE
from snowfield.indexer.indexer import STAGES
from snowfield.store import writes
from snowfield.store.dump import dump
from snowfield.testing import index_node, open_database
from tests.indexer.conftest import Indexed


def test_blocks_and_transactions_match_the_node(indexed: Indexed) -> None:
    w3, db = indexed.w3, indexed.db
    assert writes.checkpoint(db, 43112) == (
        indexed.head,
        w3.eth.get_block(indexed.head)["hash"].to_0x_hex(),
    )
    blocks = db.query("SELECT number, hash, parent_hash, tx_count, timestamp FROM blocks")
    assert [b[0] for b in blocks] == list(range(indexed.head + 1))
    txs = {
        r[0]: r[1:]
        for r in db.query(
            "SELECT hash, from_addr, to_addr, value, status, gas_used, gas_price, created,"
            " block_number, tx_index FROM transactions"
        )
    }
    seen = 0
    for number, block_hash, parent, count, timestamp in blocks:
        block = w3.eth.get_block(number, full_transactions=True)
        assert (block_hash, parent) == (block["hash"].to_0x_hex(), block["parentHash"].to_0x_hex())
        assert (count, timestamp) == (len(block["transactions"]), block["timestamp"])
        for tx in block["transactions"]:
            receipt = w3.eth.get_transaction_receipt(tx["hash"])
            created = receipt["contractAddress"]
            assert txs[tx["hash"].to_0x_hex()] == (
                tx["from"].lower(),
                tx["to"].lower() if tx["to"] else None,
                str(tx["value"]),
                receipt["status"],
                receipt["gasUsed"],
                str(receipt["effectiveGasPrice"]),
                created.lower() if created else None,
                number,
                tx["transactionIndex"],
            )
            seen += 1
    assert seen == len(txs) > 50


def test_transfers_match_the_logs(indexed: Indexed) -> None:
    w3, db = indexed.w3, indexed.db
    expected: Counter[str] = Counter()
    for topic in (TRANSFER, TRANSFER_SINGLE, TRANSFER_BATCH):
        for log in w3.eth.get_logs({"fromBlock": 0, "toBlock": indexed.head, "topics": [topic]}):
            if topic == TRANSFER:
                expected["ERC-20" if len(log["topics"]) == 3 else "ERC-721"] += 1
            elif topic == TRANSFER_SINGLE:
                expected["ERC-1155"] += 1
            else:
                data = bytes(log["data"])
                expected["ERC-1155"] += int.from_bytes(data[64:96], "big")  # ids in the batch
    stored = Counter(dict(db.query("SELECT erc_type, COUNT(*) FROM transfers GROUP BY erc_type")))
    assert stored == expected
    assert set(expected) == {"ERC-20", "ERC-721", "ERC-1155"}


def test_internal_transactions_match_the_traces(indexed: Indexed) -> None:
    db = indexed.db
    stored = Counter(r[0] for r in db.query("SELECT tx_hash FROM internal_txs"))
    assert stored, "the demo makes contract-to-contract calls"

    def frames(frame: dict[str, object]) -> int:
        calls = frame.get("calls") or []
        assert isinstance(calls, list)
        return sum(1 + frames(c) for c in calls)

    for (tx_hash,) in db.query("SELECT hash FROM transactions"):
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "debug_traceTransaction",
            "params": [tx_hash, {"tracer": "callTracer"}],
        }
        trace = httpx.post(indexed.node.rpc, json=body, timeout=30).json()["result"]
        assert stored.get(tx_hash, 0) == frames(trace), tx_hash


def test_contracts_and_their_factories(indexed: Indexed) -> None:
    db, report = indexed.db, indexed.report
    rows = {
        r[0]: r[1:] for r in db.query("SELECT address, deployer, factory, creation FROM contracts")
    }
    deployer = Web3.to_checksum_address(indexed.w3.eth.accounts[0]).lower()
    for address in report.contracts.values():
        assert rows[address.lower()] == (deployer, None, "CREATE")
    factory = report.contracts["Factory"].lower()
    made = Counter(r[2] for r in rows.values() if r[1] == factory)
    assert made["CREATE"] >= 3 and made["CREATE2"] >= 3
    for address in rows:
        assert indexed.w3.eth.get_code(Web3.to_checksum_address(address)) != b"", address


def test_tokens_and_nfts(indexed: Indexed) -> None:
    db, report, w3 = indexed.db, indexed.report, indexed.w3
    tokens = {
        r[0]: r[1:]
        for r in db.query("SELECT address, erc_type, name, symbol, decimals FROM tokens")
    }
    assert tokens[report.contracts["SNOW"].lower()] == ("ERC-20", "Snow Token", "SNOW", 18)
    assert tokens[report.contracts["FUSD"].lower()] == ("ERC-20", "Flake Dollar", "FUSD", 6)
    assert tokens[report.contracts["DemoNFT"].lower()][0] == "ERC-721"
    assert tokens[report.contracts["DemoMulti"].lower()][0] == "ERC-1155"
    assert tokens[report.contracts["Reverter"].lower()][0] == "UNKNOWN"
    nft = w3.eth.contract(
        address=Web3.to_checksum_address(report.contracts["DemoNFT"]),
        abi=[
            {
                "name": "ownerOf",
                "type": "function",
                "stateMutability": "view",
                "inputs": [{"name": "id", "type": "uint256"}],
                "outputs": [{"name": "", "type": "address"}],
            },
            {
                "name": "tokenURI",
                "type": "function",
                "stateMutability": "view",
                "inputs": [{"name": "id", "type": "uint256"}],
                "outputs": [{"name": "", "type": "string"}],
            },
        ],
    )
    rows = db.query(
        "SELECT token_id, owner, token_uri, index_status, metadata FROM nfts WHERE token = ?",
        (report.contracts["DemoNFT"].lower(),),
    )
    assert len(rows) >= 3
    for token_id, owner, uri, status, metadata in rows:
        assert owner == nft.functions.ownerOf(int(token_id)).call().lower()
        assert uri == nft.functions.tokenURI(int(token_id)).call()
        assert status == "indexed" and '"name"' in metadata


def test_balances_match_the_node(indexed: Indexed) -> None:
    rows = indexed.db.query("SELECT address, balance, block_number FROM balances")
    addresses = {r[0] for r in rows}
    senders = {r[0] for r in indexed.db.query("SELECT DISTINCT from_addr FROM transactions")}
    assert senders <= addresses
    for address, balance, block in rows:
        on_chain = indexed.w3.eth.get_balance(Web3.to_checksum_address(address), block)
        assert int(balance) == on_chain, (address, block)
    latest = indexed.db.query(
        "SELECT address, balance FROM balances b WHERE block_number ="
        " (SELECT MAX(block_number) FROM balances WHERE address = b.address)"
    )
    for address, balance in latest:
        assert int(balance) == indexed.w3.eth.get_balance(Web3.to_checksum_address(address))


def test_address_activity_covers_every_role(indexed: Indexed) -> None:
    db = indexed.db
    for address in {r[0] for r in db.query("SELECT DISTINCT from_addr FROM transactions")}:
        expected = set(
            db.query(
                "SELECT block_number, tx_index FROM transactions WHERE from_addr = ? OR to_addr = ?"
                " OR created = ? UNION SELECT block_number, tx_index FROM transfers"
                " WHERE from_addr = ? OR to_addr = ? UNION SELECT block_number, tx_index"
                " FROM internal_txs WHERE from_addr = ? OR to_addr = ?",
                (address,) * 7,
            )
        )
        stored = set(
            db.query("SELECT block_number, tx_index FROM address_txs WHERE address = ?", (address,))
        )
        assert stored == expected and stored


def test_indexing_again_changes_nothing(indexed: Indexed) -> None:
    before = dump(indexed.db)
    index_node(indexed.db, indexed.node.rpc, until=indexed.head)
    assert dump(indexed.db) == before
    # Replaying everything from genesis (a lost checkpoint) also gives the same rows.
    with indexed.db.transaction() as w:
        w.execute("DELETE FROM checkpoints")
    index_node(indexed.db, indexed.node.rpc, until=indexed.head, batch_blocks=7)
    assert dump(indexed.db) == before


def test_small_batches_in_flight_give_the_same_rows(
    indexed: Indexed, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Many batches in the pipeline at once: balances, tokens and NFTs of batches not yet
    written come from the stages' own memory, and must equal a run in large batches."""
    if indexed.db.dialect != "sqlite":
        pytest.skip("one fresh SQLite file is enough to check the pipeline")
    with open_database(str(tmp_path_factory.mktemp("db") / "small.db")) as db:
        indexer = index_node(db, indexed.node.rpc, until=indexed.head, batch_blocks=2)
        assert dump(db) == dump(indexed.db)
    assert indexer.stats.batches >= (indexed.head + 1) // 2
    assert all(indexer.stats.busy[stage] > 0 for stage in STAGES), indexer.stats.busy


def test_a_failed_write_stops_the_pipeline_and_commits_nothing_of_its_batch(
    indexed: Indexed, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if indexed.db.dialect != "sqlite":
        pytest.skip("the failure is a SQLite trigger")
    with open_database(str(tmp_path_factory.mktemp("db") / "failing.db")) as db:
        with db.transaction() as w:  # the third batch's checkpoint cannot be written
            w.execute(
                "CREATE TRIGGER no_third BEFORE INSERT ON checkpoints WHEN NEW.height >= 5"
                " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
            )
            w.execute(
                "CREATE TRIGGER no_third_update BEFORE UPDATE ON checkpoints"
                " WHEN NEW.height >= 5 BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
            )
        started = time.monotonic()
        with pytest.raises(sqlite3.DatabaseError, match="disk on fire"):
            index_node(db, indexed.node.rpc, until=indexed.head, batch_blocks=2)
        assert time.monotonic() - started < 60
        assert writes.checkpoint(db, indexed.w3.eth.chain_id) == (3, block_hash(indexed, 3))
        assert db.query("SELECT MAX(number) FROM blocks") == [(3,)]
        assert db.query("SELECT COUNT(*) FROM transactions WHERE block_number > 3") == [(0,)]


def block_hash(indexed: Indexed, number: int) -> str:
    return indexed.w3.eth.get_block(number)["hash"].to_0x_hex()
