"""The ICM messenger on a devnet's chains: its keyless deployment (one pre-signed transaction
without a chain id, so the messenger lands at the same address on the C-Chain and every L1, as
the network's is deployed), and the calls and events a sender, a relayer and a test need.

Public API: `KEYLESS`, `MESSENGER_ADDRESS`, `deploy_messenger(rpc, funder)`, `send_message_data`,
`receive_message_data`, `TOPICS`, `decode_message`, `sent_warp_message`, `Keyless`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import rlp
from eth_abi import decode, encode
from eth_keys import keys

from snowfield.crypto.hashing import keccak
from snowfield.crypto.keys import key_from_bytes, sign_transaction
from snowfield.formats.icm import MESSAGE_TYPE, SIGNATURES
from snowfield.formats.warp.message import UnsignedMessage
from snowfield.rpc.client import RpcClient
from snowfield.workload.contracts import call_data, event_topic, load

# The messenger's own events as formats/icm.py names them, and the one it leaves out.
TOPICS = {
    signature.split("(")[0]: event_topic(signature)
    for signature in (*SIGNATURES.values(), "RelayerRewardsRedeemed(address,address,uint256)")
}
WARP = "0x0200000000000000000000000000000000000005"
SEND_WARP_TOPIC = "0x" + event_topic("SendWarpMessage(address,bytes32,bytes)").hex()
GAS_PRICE = 300 * 10**9  # above every devnet chain's base fee
GAS_LIMIT = 3_000_000
# Nick's method: any fixed (r, s) whose recovery gives a key nobody holds; the tx has no
# chain id (pre-EIP-155), so it is valid on every chain.
_R = _S = int("22" * 32, 16)  # a point's x, and a low s (the classic keyless factory's values)


@dataclass(frozen=True, slots=True)
class Keyless:
    raw: bytes  # the signed creation transaction
    deployer: str  # the one-time address that must hold GAS_PRICE * GAS_LIMIT
    address: str  # where the messenger lands

    @property
    def cost(self) -> int:
        return GAS_PRICE * GAS_LIMIT


def _keyless(initcode: bytes) -> Keyless:
    fields = [0, GAS_PRICE, GAS_LIMIT, b"", 0, initcode]
    digest = keccak(rlp.encode(fields))
    signature = keys.Signature(vrs=(0, _R, _S))
    sender = signature.recover_public_key_from_msg_hash(digest).to_canonical_address()
    raw = rlp.encode([*fields, 27, _R, _S])
    created = keccak(rlp.encode([sender, 0]))[12:]
    return Keyless(raw, "0x" + sender.hex(), "0x" + created.hex())


KEYLESS = _keyless(load("TeleporterMessenger").bytecode)
MESSENGER_ADDRESS = KEYLESS.address


def send_message_data(
    destination: bytes,
    to: str,
    message: bytes,
    *,
    fee_token: str = "0x" + "00" * 20,
    fee: int = 0,
    gas_limit: int = 100_000,
    relayers: tuple[str, ...] = (),
) -> bytes:
    """Calldata of sendCrossChainMessage(TeleporterMessageInput)."""
    value = (destination, to, (fee_token, fee), gas_limit, list(relayers), message)
    signature = "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))"
    return call_data(signature, value)


def receive_message_data(index: int, reward_address: str) -> bytes:
    return call_data("receiveCrossChainMessage(uint32,address)", index, reward_address)


def decode_message(data: bytes) -> tuple[Any, ...]:
    """A TeleporterMessage from its ABI encoding (a Warp payload, or an event's data head)."""
    (message,) = decode([MESSAGE_TYPE], data)
    return tuple(message)


def sent_warp_message(receipt: dict[str, Any]) -> UnsignedMessage | None:
    """The Warp message a transaction sent (its SendWarpMessage log), None when it sent none."""
    for item in receipt["logs"]:
        if item["address"].lower() == WARP and item["topics"][0] == SEND_WARP_TOPIC:
            (data,) = decode(["bytes"], bytes.fromhex(item["data"][2:]))
            return UnsignedMessage.decode(data)
    return None


def encode_message(message: tuple[Any, ...]) -> bytes:
    return bytes(encode([MESSAGE_TYPE], [message]))


class EvmAccount:
    """A dev key sending signed transactions on one EVM chain over JSON-RPC."""

    def __init__(self, rpc: RpcClient, secret: bytes) -> None:
        self.rpc = rpc
        self.secret = secret
        self.address = key_from_bytes(secret).checksum_address

    async def send(
        self,
        to: str | None,
        data: bytes = b"",
        *,
        value: int = 0,
        gas: int = 1_000_000,
        access_list: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Sends and waits for the receipt (the devnet mines at once)."""
        chain_id = int(await self.rpc.call("eth_chainId"), 16)
        nonce = int(await self.rpc.call("eth_getTransactionCount", self.address, "pending"), 16)
        fields: dict[str, Any] = {
            "chainId": chain_id,
            "nonce": nonce,
            "maxFeePerGas": GAS_PRICE,
            "maxPriorityFeePerGas": 10**9,
            "gas": gas,
            "value": value,
            "data": data,
            "accessList": access_list or [],
        }
        if to is not None:
            fields["to"] = to
        raw = sign_transaction(fields, self.secret)
        return await wait_receipt(
            self.rpc, await self.rpc.call("eth_sendRawTransaction", "0x" + raw.hex())
        )


async def wait_receipt(rpc: RpcClient, tx_hash: str, polls: int = 200) -> dict[str, Any]:
    for _ in range(polls):
        receipt = await rpc.call("eth_getTransactionReceipt", tx_hash)
        if receipt is not None:
            return dict(receipt)
        await asyncio.sleep(0.02)
    raise RuntimeError(f"transaction {tx_hash} was not mined")


async def deploy_messenger(rpc: RpcClient, funder: EvmAccount) -> str:
    """The messenger at MESSENGER_ADDRESS on this chain (deployed unless already there)."""
    if await rpc.call("eth_getCode", MESSENGER_ADDRESS, "latest") not in ("0x", "0x0", None):
        return MESSENGER_ADDRESS
    balance = int(await rpc.call("eth_getBalance", KEYLESS.deployer, "latest"), 16)
    if balance < KEYLESS.cost:
        await funder.send(KEYLESS.deployer, value=KEYLESS.cost - balance, gas=21_000)
    receipt = await wait_receipt(
        rpc, await rpc.call("eth_sendRawTransaction", "0x" + KEYLESS.raw.hex())
    )
    if (
        receipt["status"] != "0x1"
        or receipt.get("contractAddress", "").lower() != MESSENGER_ADDRESS
    ):
        raise RuntimeError(f"the messenger's keyless deployment failed: {receipt}")
    return MESSENGER_ADDRESS
