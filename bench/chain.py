"""What the benchmarks share for building chains: dev keys, signed EIP-1559 transactions, and
a JSON-RPC batch client (anvil itself comes from snowfield.testing.anvil_binary)."""

from __future__ import annotations

from typing import Any

import httpx
from eth_account import Account

MNEMONIC = "test test test test test test test test test test test junk"


def keys(n: int) -> list[bytes]:
    """The first `n` dev keys of the well-known mnemonic (funded on anvil and the devnet)."""
    Account.enable_unaudited_hdwallet_features()
    return [
        bytes(Account.from_mnemonic(MNEMONIC, account_path=f"m/44'/60'/0'/0/{i}").key)
        for i in range(n)
    ]


def sign(chain_id: int, key: bytes, nonce: int, to: str | None, data: bytes = b"",
         value: int = 0, gas: int = 21_000) -> str:  # fmt: skip
    tx: dict[str, Any] = {"value": value, "gas": gas, "maxFeePerGas": 10**11,
                          "maxPriorityFeePerGas": 10**9, "nonce": nonce, "chainId": chain_id,
                          "type": 2, "data": data}  # fmt: skip
    if to is not None:
        tx["to"] = to
    return "0x" + bytes(Account.sign_transaction(tx, key).raw_transaction).hex()


class Rpc:
    """Synchronous JSON-RPC batches; any error item raises."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(timeout=60)

    def batch(self, calls: list[tuple[str, list[Any]]]) -> list[Any]:
        body = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p}
                for i, (m, p) in enumerate(calls)]  # fmt: skip
        replies = self.client.post(self.url, json=body).json()
        for r in replies:
            if "error" in r:
                raise RuntimeError(r["error"])
        return [r["result"] for r in sorted(replies, key=lambda r: r["id"])]

    def close(self) -> None:
        self.client.close()
