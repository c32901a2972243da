"""An unwind leaves no stale balance: the devnet reverts to a snapshot after the index read
native, ERC-20, ERC-721 and ERC-1155 moves past it, builds a longer chain of other moves, and the
re-index unwinds to the fork. Every balance then equals the node's, and the store holds exactly
the rows of indexing the final chain alone."""

from __future__ import annotations

import time
from pathlib import Path

from web3 import Web3

from snowfield.store import balance_queries
from snowfield.store.database import Database
from snowfield.store.dump import dump
from snowfield.store.rows import ERC20, ERC1155, ChainRow
from snowfield.store.writes import upsert_chain
from snowfield.testing import RunningNode, index_node, open_database, run_demo_rounds, serve_devnet
from snowfield.workload.contracts import call_data
from tests.api.conftest import api_client
from tests.conftest import _url
from tests.helpers import rpc_reply, signed_transfer

CHAIN = 43112
A = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"  # dev account 0, the demo's deployer
X = "0x" + "ab" * 20  # receives everything on the branch that is undone
Y = "0x" + "cd" * 20  # receives on the branch that stays


def _send(node: RunningNode, to: str, data: bytes = b"", value: int = 0) -> None:
    nonce = int(rpc_reply(node.rpc, "eth_getTransactionCount", A, "latest")["result"], 16)
    raw = signed_transfer(
        nonce, to=Web3.to_checksum_address(to), value=value, data=data, gas=300_000
    )
    assert "error" not in rpc_reply(node.rpc, "eth_sendRawTransaction", raw)


def _holdings(db: Database, address: str) -> dict[tuple[int, str, int | None], int]:
    fungible = balance_queries.erc20_balances(
        db, CHAIN, address, block=None, contracts=None, after=None, limit=100
    )
    collectible = balance_queries.collectible_balances(
        db, CHAIN, address, block=None, contract=None, after=None, limit=100
    )
    return {(b.kind, b.token, b.token_id): b.balance for b in fungible.items + collectible.items}


def test_an_unwind_leaves_no_stale_balance(db: Database, tmp_path: Path) -> None:
    with serve_devnet() as node:
        report = run_demo_rounds(node.rpc, 1)
        snow, nft, multi = (report.contracts[k] for k in ("SNOW", "DemoNFT", "DemoMulti"))
        fork = int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16)
        snapshot = rpc_reply(node.rpc, "evm_snapshot")["result"]
        _send(node, snow, call_data("transfer(address,uint256)", X, 5 * 10**18))
        _send(node, nft, call_data("mint(address)", X))
        _send(node, multi, call_data("mint(address,uint256,uint256)", X, 1, 3))
        _send(node, X, value=10**15)
        index_node(db, node.rpc)
        assert _holdings(db, X) and balance_queries.native_balance_at(db, CHAIN, X, None)

        assert rpc_reply(node.rpc, "evm_revert", snapshot)["result"] is True
        later = int(time.time()) + 1000  # the new branch's blocks differ from the first
        assert "error" not in rpc_reply(node.rpc, "evm_setNextBlockTimestamp", later)
        _send(node, snow, call_data("transfer(address,uint256)", Y, 7 * 10**18))
        _send(node, multi, call_data("mint(address,uint256,uint256)", Y, 2, 4))
        for _ in range(4):
            _send(node, Y, value=10**14)
        indexer = index_node(db, node.rpc)
        assert indexer.stats.unwinds == 1
        head = int(rpc_reply(node.rpc, "eth_blockNumber")["result"], 16)
        assert head > fork + 4

        w3 = Web3(Web3.HTTPProvider(node.rpc))
        assert _holdings(db, X) == {}
        assert balance_queries.native_balance_at(db, CHAIN, X, None) is None
        assert w3.eth.get_balance(Web3.to_checksum_address(X)) == 0
        assert _holdings(db, Y) == {(ERC20, snow, None): 7 * 10**18, (ERC1155, multi, 2): 4}
        assert balance_queries.native_balance_at(db, CHAIN, Y, None) == 4 * 10**14
        forked = dump(db)
        with open_database(_url(db.dialect, tmp_path / "straight")) as straight:
            index_node(straight, node.rpc)
            assert dump(straight) == forked
        # The API serves a chain it lists (after the dump: the chain row is not the index's).
        upsert_chain(db, ChainRow(CHAIN, "C-Chain", "local", node.rpc))
        _served_balances_are_the_nodes(db, w3, fork, head, X, Y)


def _served_balances_are_the_nodes(
    db: Database, w3: Web3, fork: int, head: int, *addresses: str
) -> None:
    """Through the data API, at every height from the fork to the head: each address's native
    balance is the node's, and the undone branch left no token balance behind."""
    base = f"/v1/chains/{CHAIN}/addresses"
    with api_client(db) as client:
        for height in range(fork, head + 1):
            at = {"blockNumber": str(height)}
            for address in addresses:
                reply = client.get(f"{base}/{address}/balances:getNative", params=at)
                assert reply.status_code == 200, reply.text
                native = reply.json()
                node = w3.eth.get_balance(Web3.to_checksum_address(address), height)
                assert native["nativeTokenBalance"]["balance"] == str(node), (address, height)
            erc20 = client.get(
                f"{base}/{X}/balances:listErc20", params={**at, "filterSpamTokens": "false"}
            ).json()
            held = client.get(f"{base}/{X}/balances:listCollectibles", params=at).json()
            assert erc20["erc20TokenBalances"] == held["collectibleBalances"] == []
        beyond = client.get(f"{base}/{X}/balances:getNative", params={"blockNumber": head + 1})
        assert beyond.status_code == 400
