"""Warp across the devnet's EVM chains: a message sent on the C-Chain, signed with the devnet
validators' BLS keys, verifies as a predicate on a custom EVM chain; a bad or under-quorum
signature leaves it unavailable while the transaction still runs; gas is subnet-evm's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from eth_account import Account
from eth_utils import to_checksum_address

from snowfield.chains.evm.customgenesis import genesis_json
from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.crypto import bls
from snowfield.crypto.hashing import keccak
from snowfield.crypto.warp import ValidatorEntry, canonical_validator_set
from snowfield.formats.ids import ID, PRIMARY_NETWORK_ID, NodeID
from snowfield.formats.warp.message import BitSetSignature, Message, UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, Hash, encode_payload
from snowfield.formats.warp.predicate import decode_results, pack_predicate
from snowfield.testing import RunningNode, serve_devnet_with_custom_evm
from tests.bytecode import deploy_code
from tests.helpers import KEY0, rpc_reply

WARP = "0x0200000000000000000000000000000000000005"
SENDER = Account.from_key(KEY0)
FEE = FeeConfig(min_block_gas_cost=0, max_block_gas_cost=0, block_gas_cost_step=0)
SEND_TOPIC = keccak(b"SendWarpMessage(address,bytes32,bytes)")
GET_VERIFIED = keccak(b"getVerifiedWarpMessage(uint32)")[:4]
# Forwards its calldata to the Warp precompile and logs the result under the call's success:
# calldatacopy; call(gas, warp, 0, 0, calldatasize, 0, 0); returndatacopy; log1.
RELAY = (
    bytes.fromhex("365f5f375f5f365f5f73")
    + bytes.fromhex(WARP[2:])
    + bytes.fromhex("5af13d5f5f3e3d5fa100")
)


@pytest.fixture(scope="module")
def devnet() -> Iterator[tuple[RunningNode, str]]:
    genesis = genesis_json(
        77_777,
        {bytes.fromhex(SENDER.address[2:]): 10**24},
        fee=FEE,
        precompiles={"warpConfig": {"blockTimestamp": 0}},
    )
    with serve_devnet_with_custom_evm(genesis) as running:
        yield running


def _receipt(url: str, tx: dict[str, Any]) -> dict[str, Any]:
    chain_id = int(rpc_reply(url, "eth_chainId")["result"], 16)
    nonce = rpc_reply(url, "eth_getTransactionCount", SENDER.address, "pending")["result"]
    fields = {
        "nonce": int(nonce, 16),
        "chainId": chain_id,
        "maxFeePerGas": 10**12,
        "maxPriorityFeePerGas": 10**9,
        "value": 0,
        "type": 2,
        **tx,
    }
    raw = bytes(Account.sign_transaction(fields, KEY0).raw_transaction)
    sent = rpc_reply(url, "eth_sendRawTransaction", "0x" + raw.hex())
    assert "result" in sent, sent
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = rpc_reply(url, "eth_getTransactionReceipt", sent["result"])["result"]
        if found is not None:
            return dict(found)
        time.sleep(0.02)
    raise AssertionError("no receipt")


def _calldata_gas(data: bytes) -> int:
    return sum(16 if b else 4 for b in data)


def _sign(node: Any, unsigned: UnsignedMessage, signers: int, *, forge: bool = False) -> bytes:
    """The first `signers` canonical validators' aggregate signature, as a signed message."""
    platform = node.chains["P"].runtime.chain
    height = platform.height
    entries = [
        ValidatorEntry(NodeID(n), key, weight)
        for n, (weight, key) in platform.validators_at(height, PRIMARY_NETWORK_ID).items()
    ]
    canonical = canonical_validator_set(entries)
    by_key = {v.signer.public_key().to_bytes(): v.signer for v in node.validators}
    signed = unsigned.encode() + (b"forged" if forge else b"")
    sigs = [
        by_key[canonical.validators[i].public_key.to_bytes()].sign(signed) for i in range(signers)
    ]
    signature = bls.aggregate_signatures(sigs).to_bytes()
    bitset = BitSetSignature.from_indices(range(signers), signature)
    return Message(unsigned, bitset).encode()


def _access_list(signed: bytes) -> list[dict[str, Any]]:
    keys = ["0x" + chunk.hex() for chunk in pack_predicate(signed)]
    return [{"address": WARP, "storageKeys": keys}]


def test_a_c_chain_message_verifies_on_a_custom_evm_chain(devnet: tuple[RunningNode, str]) -> None:
    running, blockchain_id = devnet
    node = running.node
    c_url, l1_url = running.rpc, f"{running.base}/ext/bc/{blockchain_id}/rpc"

    # Send on the C-Chain: the event, the message id, the gas (subnet-evm's costs), the store.
    payload = b"hello from the C-Chain" * 3
    call = keccak(b"sendWarpMessage(bytes)")[:4] + (
        (32).to_bytes(32, "big") + len(payload).to_bytes(32, "big") + payload.ljust(96, b"\x00")
    )
    sent = _receipt(c_url, {"to": WARP, "data": "0x" + call.hex(), "gas": 200_000})
    assert sent["status"] == "0x1"
    c_chain = ID.from_string(node.ids.c_chain)
    unsigned = UnsignedMessage(
        node.settings.network_id,
        c_chain,
        encode_payload(AddressedCall(bytes.fromhex(SENDER.address[2:]), payload)),
    )
    (log,) = sent["logs"]
    assert log["topics"] == [
        "0x" + SEND_TOPIC.hex(),
        "0x" + bytes.fromhex(SENDER.address[2:]).rjust(32, b"\x00").hex(),
        "0x" + unsigned.id.raw.hex(),
    ]
    body = unsigned.encode()
    assert bytes.fromhex(log["data"][2:])[64 : 64 + len(body)] == body
    want_gas = 21_000 + _calldata_gas(call) + 41_500 + 8 * (len(call) - 4)
    assert int(sent["gasUsed"], 16) == want_gas
    c = node.c.chain
    assert c.warp_message(unsigned.id.raw) == body
    assert c.accepted_block(bytes.fromhex(sent["blockHash"][2:]))
    assert c.warp_message(b"\x00" * 32) is None
    # sendWarpMessage returns the message id.
    returned = rpc_reply(
        c_url, "eth_call", {"from": SENDER.address, "to": WARP, "data": "0x" + call.hex()}, "latest"
    )
    assert returned["result"] == "0x" + unsigned.id.raw.hex()
    # getBlockchainID answers each chain's own id.
    got = rpc_reply(
        c_url,
        "eth_call",
        {"to": WARP, "data": "0x" + keccak(b"getBlockchainID()")[:4].hex()},
        "latest",
    )
    assert got["result"] == "0x" + c_chain.raw.hex()

    # Receive on the custom EVM chain through a relay contract that logs what the precompile says.
    created = _receipt(l1_url, {"data": "0x" + deploy_code(RELAY).hex(), "gas": 200_000})
    relay = to_checksum_address(created["contractAddress"])
    read = GET_VERIFIED + (0).to_bytes(32, "big")

    def relayed(signed: bytes, data: bytes = read) -> tuple[dict[str, Any], bytes]:
        receipt = _receipt(
            l1_url,
            {
                "to": relay,
                "data": "0x" + data.hex(),
                "gas": 600_000,
                "accessList": _access_list(signed),
            },
        )
        assert receipt["status"] == "0x1"  # a failed predicate never fails the transaction
        (out,) = receipt["logs"]
        assert out["topics"] == ["0x" + (1).to_bytes(32, "big").hex()]  # the call succeeded
        return receipt, bytes.fromhex(out["data"][2:])

    quorum = _sign(node, unsigned, 4)  # 4 of 5 equal weights: 80% >= 67%
    receipt, output = relayed(quorum)
    assert int.from_bytes(output[32:64], "big") == 1  # valid
    message = output[64:]
    assert message[:32] == c_chain.raw
    assert message[44:64] == bytes.fromhex(SENDER.address[2:])
    assert message[96 + 32 : 96 + 32 + len(payload)] == payload
    block = rpc_reply(l1_url, "eth_getBlockByHash", receipt["blockHash"], False)["result"]
    results = decode_results(bytes.fromhex(block["extraData"][2:])[80:])
    tx_hash = bytes.fromhex(receipt["transactionHash"][2:])
    assert results == {tx_hash: {bytes.fromhex(WARP[2:]): frozenset()}}

    # A Hash payload (an accepted C-Chain block) reads through getVerifiedWarpBlockHash; an
    # index past the transaction's predicates reads valid = false.
    block_hash = bytes.fromhex(sent["blockHash"][2:])
    hashed = UnsignedMessage(
        node.settings.network_id, c_chain, encode_payload(Hash(ID(block_hash)))
    )
    by_hash = keccak(b"getVerifiedWarpBlockHash(uint32)")[:4]
    receipt, output = relayed(_sign(node, hashed, 4), by_hash + (0).to_bytes(32, "big"))
    assert output == c_chain.raw + block_hash + (1).to_bytes(32, "big")
    receipt, output = relayed(_sign(node, hashed, 4), by_hash + (1).to_bytes(32, "big"))
    assert output == bytes(96)

    for bad in (_sign(node, unsigned, 3), _sign(node, unsigned, 5, forge=True)):  # 60%; forged
        receipt, output = relayed(bad)
        assert output == (64).to_bytes(32, "big") + bytes(96) + (96).to_bytes(32, "big") + bytes(32)
        block = rpc_reply(l1_url, "eth_getBlockByHash", receipt["blockHash"], False)["result"]
        results = decode_results(bytes.fromhex(block["extraData"][2:])[80:])
        assert results[bytes.fromhex(receipt["transactionHash"][2:])] == {
            bytes.fromhex(WARP[2:]): frozenset({0})
        }

    # Gas, called directly: intrinsic + PredicateGas (base, chunks, signers) in place of the
    # access-list gas, then the precompile's base and, when valid, its per-chunk cost.
    chunks = len(pack_predicate(quorum))
    for signed, signers, valid in ((quorum, 4, True), (_sign(node, unsigned, 2), 2, False)):
        direct = _receipt(
            l1_url,
            {
                "to": WARP,
                "data": "0x" + read.hex(),
                "gas": 600_000,
                "accessList": _access_list(signed),
            },
        )
        want = (
            21_000
            + _calldata_gas(read)
            + 200_000
            + 3_200 * chunks
            + 500 * signers
            + 2
            + (3_200 * chunks if valid else 0)
        )
        assert int(direct["gasUsed"], 16) == want
        # A replay (tracing) reads the predicate results from the block's header.
        trace = rpc_reply(l1_url, "debug_traceTransaction", direct["transactionHash"], {})
        valid_word = bytes.fromhex(trace["result"]["returnValue"].removeprefix("0x"))[32:64]
        assert int.from_bytes(valid_word, "big") == int(valid)
        assert trace["result"]["gas"] == want
    # Estimates count the predicate as verified and charge its gas (as the real chains' calls).
    estimate = rpc_reply(
        l1_url,
        "eth_estimateGas",
        {
            "from": SENDER.address,
            "to": WARP,
            "data": "0x" + read.hex(),
            "accessList": _access_list(quorum),
        },
    )["result"]
    assert int(estimate, 16) == 21_000 + _calldata_gas(read) + 200_000 + 6_400 * chunks + 2_002

    # The C-Chain receives too (coreth's rules); its header's Extra holds the results alone.
    on_c = _receipt(
        c_url,
        {"to": WARP, "data": "0x" + read.hex(), "gas": 600_000, "accessList": _access_list(quorum)},
    )
    c_block = rpc_reply(c_url, "eth_getBlockByHash", on_c["blockHash"], False)["result"]
    tx_hash = bytes.fromhex(on_c["transactionHash"][2:])
    assert decode_results(bytes.fromhex(c_block["extraData"][2:])) == {
        tx_hash: {bytes.fromhex(WARP[2:]): frozenset()}
    }

    # A predicate that is not a Warp message is refused at admission (intrinsic gas fails).
    nonce = rpc_reply(l1_url, "eth_getTransactionCount", SENDER.address, "pending")["result"]
    junk_fields: dict[str, Any] = {
        "to": WARP,
        "data": "0x" + read.hex(),
        "gas": 600_000,
        "nonce": int(nonce, 16),
        "chainId": 77_777,
        "maxFeePerGas": 10**12,
        "maxPriorityFeePerGas": 10**9,
        "accessList": _access_list(b"not a warp message"),
        "type": 2,
    }
    junk = Account.sign_transaction(junk_fields, KEY0)
    refused = rpc_reply(l1_url, "eth_sendRawTransaction", "0x" + bytes(junk.raw_transaction).hex())
    assert refused["error"]["message"].startswith("cannot unpack warp message")
    # The predicate's gas counts in the intrinsic gas admission checks.
    short = Account.sign_transaction(
        {**junk_fields, "accessList": _access_list(quorum), "gas": 100_000}, KEY0
    )
    refused = rpc_reply(l1_url, "eth_sendRawTransaction", "0x" + bytes(short.raw_transaction).hex())
    intrinsic = 21_000 + _calldata_gas(read) + 200_000 + 3_200 * chunks + 2_000
    assert refused["error"]["message"] == (
        f"intrinsic gas too low: gas 100000, minimum needed {intrinsic}"
    )
