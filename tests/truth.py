"""What the "truth is the node" tests share (the store's balances in tests/indexer, the data
API's in tests/api): the token ABI they ask the node with, the addresses an indexed store
touched, and the frames of a callTracer trace."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from snowfield.store.database import Database

# balanceOf (ERC-20/721), balanceOf(owner, id) (ERC-1155) and ownerOf (ERC-721), for eth_call.
ABI = [
    {
        "name": "balanceOf",
        "type": "function",
        "stateMutability": "view",
        "inputs": [{"name": "owner", "type": "address"}],
        "outputs": [{"name": "", "type": "uint256"}],
    },
    {
        "name": "balanceOf",
        "type": "function",
        "stateMutability": "view",
        "inputs": [{"name": "owner", "type": "address"}, {"name": "id", "type": "uint256"}],
        "outputs": [{"name": "", "type": "uint256"}],
    },
    {
        "name": "ownerOf",
        "type": "function",
        "stateMutability": "view",
        "inputs": [{"name": "id", "type": "uint256"}],
        "outputs": [{"name": "", "type": "address"}],
    },
]


def touched_addresses(db: Database) -> list[str]:
    """Every address the store holds a transaction, a token balance or a balance of."""
    rows = db.query(
        "SELECT address FROM address_txs UNION SELECT holder FROM token_balances"
        " UNION SELECT address FROM balances"
    )
    return sorted(str(r[0]) for r in rows)


def call_frames(frame: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every call frame under a callTracer `frame`, depth first."""
    for child in frame.get("calls") or ():
        yield child
        yield from call_frames(child)
