"""Part 1 completed: an L1's validator manager sends RegisterL1Validator and L1ValidatorWeight
messages (Warp, from its address on the L1), the aggregator gathers the L1 validators'
signatures over the peer protocol, and the P-Chain accepts RegisterL1ValidatorTx and
SetL1ValidatorWeightTx once the messages verify; operation 2's path signs the registration."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from eth_utils import keccak, to_checksum_address

from snowfield.aggregator.aggregate import AggregationRequest
from snowfield.aggregator.service import AggregatorService
from snowfield.crypto.bls import SecretKey
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.l1_txs import (
    PChainOwner,
    RegisterL1ValidatorTx,
    SetL1ValidatorWeightTx,
)
from snowfield.formats.warp.message import UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, decode_payload, encode_payload
from snowfield.formats.warp.platform_messages import (
    L1ValidatorRegistration,
    L1ValidatorWeight,
    RegisterL1Validator,
    decode_message,
    encode_message,
)
from snowfield.node.l1_boot import MANAGER_ADDRESS
from snowfield.rpc.client import RpcClient
from snowfield.testing import RunningNode, serve_devnet
from snowfield.workload.platform_demo import PWallet
from tests.aggregator.test_aggregate import aggregate, check
from tests.helpers import rpc_reply
from tests.node.test_node_apis import service
from tests.node.test_warp_evm import WARP

MANAGER = to_checksum_address(MANAGER_ADDRESS)


@pytest.fixture(scope="module")
def l1() -> Iterator[tuple[RunningNode, str, ID]]:
    with serve_devnet(validators=4, l1=("managed",)) as node:
        chains = [c for c in node.node.platform.chain.blockchains() if c.name == "managed"]
        (chain,) = chains
        yield node, str(chain.blockchain_id), chain.subnet_id


def _send_from_manager(node: RunningNode, chain: str, payload: bytes) -> UnsignedMessage:
    url = f"{node.base}/ext/bc/{chain}/rpc"
    rpc_reply(url, "anvil_impersonateAccount", MANAGER)
    rpc_reply(url, "anvil_setBalance", MANAGER, hex(10**20))
    call = keccak(b"sendWarpMessage(bytes)")[:4] + (32).to_bytes(32, "big")
    call += len(payload).to_bytes(32, "big") + payload.ljust((len(payload) + 31) // 32 * 32, b"\0")
    tx = {"from": MANAGER, "to": WARP, "data": "0x" + call.hex(), "gas": hex(500_000)}
    tx_hash = rpc_reply(url, "eth_sendTransaction", tx)["result"]
    receipt = rpc_reply(url, "eth_getTransactionReceipt", tx_hash)["result"]
    assert receipt["status"] == "0x1", receipt
    return UnsignedMessage(
        node.node.settings.network_id,
        ID.from_string(chain),
        encode_payload(AddressedCall(MANAGER_ADDRESS, payload)),
    )


async def _issue(node: RunningNode, make: Any, burn: int = 0) -> str:
    async with RpcClient(f"{node.base}/ext/bc/P") as p:
        wallet = PWallet(
            p, EWOQ_KEY, node.node.settings.network_id, ID.from_string(node.node.ids.avax_asset)
        )
        return await wallet.issue(make, spend=burn)


def _register(
    node: RunningNode, chain: str, subnet: ID, node_id: bytes, expiry: int, weight: int
) -> tuple[RegisterL1Validator, str]:
    """The manager's RegisterL1Validator for a new BLS key, signed by the L1's validators and
    issued on the P-Chain with 1 AVAX of balance: (the message, the tx id)."""
    key = SecretKey.generate()
    owner = PChainOwner(1, (ShortID(bytes(range(20))),))
    register = RegisterL1Validator(
        subnet, node_id, key.public_key().to_bytes(), expiry, owner, owner, weight
    )
    unsigned = _send_from_manager(node, chain, encode_message(register))
    signed, _ = asyncio.run(aggregate(node, AggregationRequest(unsigned)))
    pop = key.prove_possession().to_bytes()
    tx_id = asyncio.run(
        _issue(node, lambda base: RegisterL1ValidatorTx(base, 10**9, pop, signed.encode()), 10**9)
    )
    return register, tx_id


def _status(node: RunningNode, tx_id: str) -> Any:
    return service(f"{node.base}/ext/bc/P", "platform.getTxStatus", {"txID": tx_id})["result"]


def test_register_then_remove_an_l1_validator(l1: tuple[RunningNode, str, ID]) -> None:
    node, chain, subnet = l1
    register, tx_id = _register(node, chain, subnet, bytes([7]) * 20, int(time.time()) + 3600, 50)
    assert _status(node, tx_id) == {"status": "Committed"}
    validation = str(register.validation_id)
    got = service(f"{node.base}/ext/bc/P", "platform.getL1Validator", {"validationID": validation})
    assert got["result"]["weight"] == "50" and got["result"]["subnetID"] == str(subnet)

    # the P-Chain's registration message, as operation 2 builds it from the tx, signs and verifies
    service_ = AggregatorService(node.base, deadline=5)

    async def by_tx() -> Any:
        try:
            return await service_.aggregate_tx(tx_id)
        finally:
            await service_.close()

    attested = asyncio.run(by_tx())
    assert attested.unsigned.source_chain_id == P_CHAIN_ID
    payload = decode_payload(attested.unsigned.payload)
    assert isinstance(payload, AddressedCall)
    assert decode_message(payload.payload) == L1ValidatorRegistration(register.validation_id, True)
    check(node, attested)

    # weight to 0: removed; the same nonce again is stale
    weight = L1ValidatorWeight(register.validation_id, 0, 0)
    unsigned = _send_from_manager(node, chain, encode_message(weight))
    signed, _ = asyncio.run(aggregate(node, AggregationRequest(unsigned)))
    removed = asyncio.run(_issue(node, lambda base: SetL1ValidatorWeightTx(base, signed.encode())))
    assert _status(node, removed) == {"status": "Committed"}
    record = node.node.platform.chain.state.l1_validators[register.validation_id]
    assert (record.weight, record.balance, record.min_nonce) == (0, 0, 1)
    with pytest.raises(Exception, match=r"stale nonce|not found|failed to verify warp message"):
        asyncio.run(_issue(node, lambda base: SetL1ValidatorWeightTx(base, signed.encode())))


def test_a_forged_message_is_refused(l1: tuple[RunningNode, str, ID]) -> None:
    node, chain, subnet = l1
    key = SecretKey.generate()
    owner = PChainOwner(1, (ShortID(bytes(range(20))),))
    register = RegisterL1Validator(
        subnet,
        bytes([9]) * 20,
        key.public_key().to_bytes(),
        int(time.time()) + 600,
        owner,
        owner,
        5,
    )
    unsigned = _send_from_manager(node, chain, encode_message(register))
    signed, _ = asyncio.run(aggregate(node, AggregationRequest(unsigned)))
    forged = bytearray(signed.encode())
    forged[-1] ^= 1  # one bit of the aggregate signature
    pop = key.prove_possession().to_bytes()
    with pytest.raises(Exception, match="failed to verify warp message"):
        asyncio.run(
            _issue(node, lambda base: RegisterL1ValidatorTx(base, 10**9, pop, bytes(forged)))
        )


def test_expiry_is_judged_at_the_next_block_time(l1: tuple[RunningNode, str, ID]) -> None:
    """The P-Chain judges a registration's expiry window against the block it will be in (the
    network's time), not its last block's, which lags when no tx came for a while."""
    node, chain, subnet = l1
    rpc_reply(node.rpc, "evm_increaseTime", 600)  # the network clock runs ahead of P's last block
    platform = node.node.platform
    now = int(platform.now())
    assert now - platform.chain.state.timestamp >= 600
    _, tx_id = _register(node, chain, subnet, bytes([11]) * 20, now + 24 * 3600 - 60, 3)
    assert _status(node, tx_id) == {"status": "Committed"}
