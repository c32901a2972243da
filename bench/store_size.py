"""What schema 11 adds to the store's size: bytes per million transactions of each table and
index, measured on a SQLite file the indexer filled (SQLite's dbstat: pages each b-tree uses).

The chain is bench/indexer.py's (anvil, --blocks blocks of --txs native and ERC-20 transfers,
one in eight an ERC-20 transfer), plus --nfts ERC-721 mints and ERC-1155 transfers, so that every
kind of token balance has rows. Prints each b-tree's size (a table's with its key's index) and
per million transactions, and what the tables and indexes schema 11 added (logs, inputs, token
balances, the new listing indexes) come to together, beside tables that were there before.

    python bench/store_size.py [--blocks 2000] [--txs 20000] [--nfts 400]
    python bench/store_size.py --store .bench/api/op5-2000000-….db   # an existing store
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import httpx
from eth_account import Account
from web3 import Web3

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chain import Rpc, keys, sign
from indexer import build_chain
from snowfield.indexer.calls import Calls
from snowfield.indexer.indexer import Indexer
from snowfield.rpc.client import DocumentFetcher, RpcClient
from snowfield.store.database import Database
from snowfield.testing import serve_anvil
from snowfield.workload.contracts import call_data, load

# The b-trees schema 11 added: its tables and the indexes of its listings.
ADDED = {
    "logs": "every receipt log",
    "tx_inputs": "transaction inputs",
    "token_balance_history": "ERC-20/721/1155 balance after each change",
    "token_balances": "each holder's current token balances",
    "address_txs_native": "listNative's index",
    "internal_txs_from_key": "listInternals' index (sender)",
    "internal_txs_to_key": "listInternals' index (receiver)",
    "transfers_by_token_key": "a token's transfers' index",
    "transactions_failed": "failed transactions' index",
    "blocks_by_time": "blocks by time (feeds of several chains)",
}
BEFORE = {
    "balances": "native balance after each change (schema 10 too)",
    "transactions": "the transactions (schema 10 too)",
    "address_txs": "operation 5's keyset (schema 10 too)",
}


def add_nfts(url: str, count: int) -> None:
    """`count` ERC-721 mints and as many ERC-1155 transfers, a block each ten."""
    key = keys(1)[0]
    me = Account.from_key(key).address
    rpc = Rpc(url)
    nonce = int(str(rpc.batch([("eth_getTransactionCount", [me, "latest"])])[0]), 16)
    addresses = {}
    for name in ("DemoNFT", "DemoMulti"):
        raw = sign(31337, key, nonce, None, load(name).deploy_data(), gas=5_000_000)
        tx_hash = rpc.batch([("eth_sendRawTransaction", [raw]), ("evm_mine", [])])[0]
        receipt = rpc.batch([("eth_getTransactionReceipt", [tx_hash])])[0]
        assert isinstance(receipt, dict)
        addresses[name] = Web3.to_checksum_address(receipt["contractAddress"])
        nonce += 1
    others = [Account.from_key(k).address for k in keys(8)[1:]]
    for i in range(count):
        to = others[i % len(others)]
        for contract, data in (
            ("DemoNFT", call_data("mint(address)", to)),
            ("DemoMulti", call_data("mint(address,uint256,uint256)", to, i % 16, 5)),
        ):
            raw = sign(31337, key, nonce, addresses[contract], data, gas=300_000)
            rpc.batch([("eth_sendRawTransaction", [raw])])
            nonce += 1
        if i % 10 == 9:
            rpc.batch([("evm_mine", [])])
    rpc.batch([("evm_mine", [])])
    rpc.close()


async def index(url: str, head: int, path: Path) -> None:
    db = Database(str(path))
    db.migrate()
    fetcher = DocumentFetcher()
    async with RpcClient(url) as client:
        await Indexer(db, Calls(client), fetcher, 31337, batch_blocks=100).sync(head)
    await fetcher.aclose()
    db.close()


def sizes(path: Path) -> tuple[dict[str, int], dict[str, int]]:
    """Bytes of each b-tree, and rows of each table."""
    # A census of a multi-GB store outlasts the 10 s query limit meant for API reads.
    db = Database(str(path), query_timeout=600)
    pages = db.query("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")
    btrees = {str(n): int(s) for n, s in pages}
    tables = [str(r[0]) for r in db.query("SELECT name FROM sqlite_master WHERE type = 'table'")]
    rows = {t: int(db.query("SELECT COUNT(*) FROM " + t)[0][0]) for t in tables}
    db.close()
    return btrees, rows


def _size(btrees: dict[str, int], name: str) -> int:
    """A b-tree's bytes; a table's with its primary key's index (a rowid table has one)."""
    key = f"sqlite_autoindex_{name}_"
    return btrees.get(name, 0) + sum(v for k, v in btrees.items() if k.startswith(key))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", type=int, default=2000)
    parser.add_argument("--txs", type=int, default=20_000)
    parser.add_argument("--nfts", type=int, default=400)
    parser.add_argument("--store", type=Path, help="report on this SQLite store, build nothing")
    args = parser.parse_args()
    started = time.monotonic()
    if args.store is not None:  # e.g. a store of bench/api.py (.bench/api/), 2M transactions
        report(args.store, started)
        return
    with (
        serve_anvil("--no-mining", "--gas-limit", "100000000") as url,
        tempfile.TemporaryDirectory() as tmp,
    ):
        build_chain(url, args.blocks, args.txs)
        add_nfts(url, args.nfts)
        head = int(httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber",
                                        "params": []}).json()["result"], 16)  # fmt: skip
        path = Path(tmp) / "size.db"
        asyncio.run(index(url, head, path))
        report(path, started)


def report(path: Path, started: float) -> None:
    btrees, rows = sizes(path)
    total = sum(btrees.values())
    txs, logs, blocks = rows["transactions"], rows["logs"], rows["blocks"]
    per_m = 1_000_000 / txs
    print(f"{txs:,} transactions, {logs:,} logs, {blocks:,} blocks; file {total / 1e6:.1f} MB"
          f" ({total * per_m / 1e9:.2f} GB per million transactions);"
          f" {time.monotonic() - started:.0f} s")  # fmt: skip
    print(f"{'b-tree':<26}{'MB':>8}{'MB per 1M txs':>15}{'rows':>11}{'B/row':>7}  what")
    for names, label in ((ADDED, "schema 11 adds"), (BEFORE, "for comparison")):
        print(f"-- {label}")
        for name, what in names.items():
            size, count = _size(btrees, name), rows.get(name)
            per_row = f"{size / count:>7,.0f}" if count else f"{'':>7}"
            print(f"{name:<26}{size / 1e6:>8.2f}{size * per_m / 1e6:>15,.0f}"
                  f"{'' if count is None else f'{count:,}':>11}{per_row}  {what}")  # fmt: skip
    added = sum(_size(btrees, n) for n in ADDED)
    print(f"schema 11 adds {added * per_m / 1e6:,.0f} MB per million transactions,"
          f" {added / total:.0%} of the file")  # fmt: skip


if __name__ == "__main__":
    main()
