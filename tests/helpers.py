"""Small helpers the node tests share: raw JSON-RPC calls and signed transfers."""

from __future__ import annotations

from typing import Any

import httpx
from eth_account import Account

from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.store.database import Database

KEY0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"


def rpc_reply(url: str, method: str, *params: Any) -> dict[str, Any]:
    """The whole JSON-RPC reply (result or error) of one call."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    reply: dict[str, Any] = httpx.post(url, json=body, timeout=30).json()
    return reply


def signed_transfer(nonce: int, *, to: str, value: int = 1, key: Any = KEY0, **fields: Any) -> str:
    """A 0x-hex EIP-1559 transfer on chain 43112, fields overridable."""
    tx = {
        "to": to,
        "value": value,
        "gas": 21000,
        "maxFeePerGas": 10**11,
        "maxPriorityFeePerGas": 10**9,
        "nonce": nonce,
        "chainId": 43112,
        "type": 2,
        **fields,
    }
    return "0x" + bytes(Account.sign_transaction(tx, key).raw_transaction).hex()


def prometheus_samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a Prometheus scrape by name and labels, as prometheus-client parses it."""
    from prometheus_client.parser import text_string_to_metric_families

    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def labels(**values: str) -> frozenset[tuple[str, str]]:
    return frozenset(values.items())


async def sync_primary(db: Database, base: str) -> None:
    """The primary network's index of the node at `base`, up to its last accepted."""
    source = PlatformSource(base)
    try:
        await PrimaryIndexer(db, source, batch_size=3).sync()
    finally:
        await source.aclose()
