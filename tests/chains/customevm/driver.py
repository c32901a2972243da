"""A custom EVM chain driven in process: signed transactions from known keys, calls, receipts."""

from __future__ import annotations

from typing import Any

from eth_account import Account

from snowfield.chains.evm.customgenesis import genesis_json
from snowfield.chains.evm.execution.call import CallArgs
from snowfield.chains.evm.execution.transactions import decode_tx
from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.chains.evm.model import Receipt
from snowfield.crypto.hashing import keccak
from snowfield.testing import custom_evm_chain

CHAIN_ID = 77_777
GENESIS_TIME = 1_700_000_000
KEYS = [Account.from_key(bytes([i + 11]) * 32) for i in range(5)]
ADDRS = [bytes.fromhex(k.address[2:]) for k in KEYS]
# No block gas cost: these tests are about precompiles, not the block fee.
FREE = FeeConfig(min_block_gas_cost=0, max_block_gas_cost=0, block_gas_cost_step=0)


def sel(signature: str) -> bytes:
    return keccak(signature.encode())[:4]


def word(value: int | bytes) -> bytes:
    return value.rjust(32, b"\x00") if isinstance(value, bytes) else value.to_bytes(32, "big")


def hexaddr(address: bytes) -> str:
    return "0x" + address.hex()


class Driver:
    """One chain; each `send` is mined in its own block one second after the last."""

    def __init__(self, **genesis: Any) -> None:
        genesis.setdefault("fee", FREE)
        data = genesis_json(
            CHAIN_ID, dict.fromkeys(ADDRS, 10**24), timestamp=GENESIS_TIME, **genesis
        )
        self.chain = custom_evm_chain(data)
        self.nonces = [0] * len(KEYS)
        self.now = GENESIS_TIME

    def sign(
        self, who: int, to: bytes | None, data: bytes = b"", value: int = 0, gas: int = 300_000
    ) -> bytes:
        base = self.chain.next_base_fee(self.now + 1)
        tx: dict[str, Any] = {
            "value": value,
            "gas": gas,
            "nonce": self.nonces[who],
            "chainId": CHAIN_ID,
            "type": 2,
            "maxFeePerGas": 2 * base + 10**9,
            "maxPriorityFeePerGas": 10**9,
            "data": data,
        }
        if to is not None:
            tx["to"] = to
        return bytes(Account.sign_transaction(tx, KEYS[who].key).raw_transaction)

    def send(
        self, who: int, to: bytes | None, data: bytes = b"", value: int = 0, gas: int = 300_000
    ) -> Receipt:
        tx = self.chain.submit_decoded(decode_tx(self.sign(who, to, data, value, gas)))
        self.nonces[who] += 1
        self.now += 1
        block = self.chain.mine(timestamp=self.now)
        assert block is not None
        found = self.chain.locate(tx.hash)
        assert found is not None
        receipt: Receipt = found.receipt
        return receipt

    def call(self, who: int, to: bytes, data: bytes) -> bytes:
        args = CallArgs(from_=ADDRS[who], to=to, data=data, gas=1_000_000)
        result: bytes = self.chain.call(args, self.chain.head)
        return result

    def balance(self, address: bytes) -> int:
        return int(self.chain.state_at(self.chain.head).balance(address))
