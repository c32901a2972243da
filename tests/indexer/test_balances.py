"""Balances are computed locally and checked against the node once per batch; when the check
fails (here: a stored balance the node disagrees with), the address is read block by block."""

from __future__ import annotations

from pathlib import Path

from web3 import Web3

from snowfield.testing import index_node, open_database, serve_devnet
from tests.helpers import rpc_reply, signed_transfer

SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
TO = Web3.to_checksum_address("0x" + "77" * 20)


def test_a_wrong_starting_balance_is_caught_and_read_from_the_node(tmp_path: Path) -> None:
    with serve_devnet() as node, open_database(str(tmp_path / "b.db")) as db:
        for nonce in range(3):
            assert "result" in rpc_reply(
                node.rpc, "eth_sendRawTransaction", signed_transfer(nonce, to=TO)
            )
        first = index_node(db, node.rpc)
        assert first.balances.refetched == 0
        with db.transaction() as w:
            w.execute("UPDATE balances SET balance = '1' WHERE address = ?", (SENDER,))
        for nonce in range(3, 6):
            assert "result" in rpc_reply(
                node.rpc, "eth_sendRawTransaction", signed_transfer(nonce, to=TO)
            )
        second = index_node(db, node.rpc)
        assert second.balances.refetched >= 1
        w3 = Web3(Web3.HTTPProvider(node.rpc))
        rows = db.query(
            "SELECT block_number, balance FROM balances WHERE address = ? AND block_number > 3",
            (SENDER,),
        )
        assert [b for b, _ in rows] == [4, 5, 6]
        for block, balance in rows:
            assert int(balance) == w3.eth.get_balance(Web3.to_checksum_address(SENDER), block)
