"""A real fork: two devnets share genesis and five identical blocks, then diverge. Indexing
one and then the other into the same store unwinds to the fork point and ends with exactly
the rows of indexing the second alone."""

from __future__ import annotations

import time
from pathlib import Path

from web3 import Web3

from snowfield.store import writes
from snowfield.store.dump import dump
from snowfield.testing import RunningNode, index_node, open_database, serve_devnet
from tests.helpers import rpc_reply, signed_transfer

X = "0x" + "ab" * 20
Y = "0x" + "cd" * 20


def send_at(node: RunningNode, timestamp: int, raw: str) -> None:
    assert "error" not in rpc_reply(node.rpc, "evm_setNextBlockTimestamp", timestamp)
    assert "error" not in rpc_reply(node.rpc, "eth_sendRawTransaction", raw)


def head_hash(node: RunningNode, number: int) -> str:
    block = rpc_reply(node.rpc, "eth_getBlockByNumber", hex(number), False)["result"]
    return str(block["hash"])


def test_fork_unwinds_to_the_common_ancestor(tmp_path: Path) -> None:
    start = int(time.time()) + 10
    genesis = start - 100
    with serve_devnet(genesis_timestamp=genesis) as a, serve_devnet(genesis_timestamp=genesis) as b:
        for i in range(5):
            raw = signed_transfer(i, to="0x" + "11" * 20, value=1000 + i)
            send_at(a, start + i, raw)
            send_at(b, start + i, raw)
        assert head_hash(a, 5) == head_hash(b, 5)
        for i in range(5, 9):
            send_at(a, start + 100 + i, signed_transfer(i, to=Web3.to_checksum_address(X), value=7))
        for i in range(5, 12):
            send_at(b, start + 200 + i, signed_transfer(i, to=Web3.to_checksum_address(Y), value=9))
        assert head_hash(a, 6) != head_hash(b, 6)

        with open_database(str(tmp_path / "forked.db")) as db:
            index_node(db, a.rpc, batch_blocks=4)
            assert writes.checkpoint(db, 43112) == (9, head_hash(a, 9))
            indexer = index_node(db, b.rpc, batch_blocks=4)
            assert indexer.stats.unwinds == 1
            forked = dump(db)
        with open_database(str(tmp_path / "straight.db")) as db:
            index_node(db, b.rpc, batch_blocks=4)
            straight = dump(db)
    assert forked == straight
    addresses = {row[1] for row in forked["balances"]}
    assert Y in addresses and X not in addresses
