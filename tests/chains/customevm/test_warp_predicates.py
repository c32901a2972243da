"""Warp predicates: avalanchego's packing and results encoding (its README vectors), and
VerifyPredicate's choice of signing subnet, quorum and errors with real BLS keys."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from snowfield.chains.evm.customgenesis import genesis_json, parse_genesis
from snowfield.chains.evm.warp import (
    NO_CHAIN,
    WARP_ADDRESS,
    SnowContext,
    WarpConfig,
    extra_intrinsic_gas,
    verify_message,
)
from snowfield.crypto import bls
from snowfield.crypto.warp import ValidatorEntry, canonical_validator_set
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, NodeID
from snowfield.formats.warp.message import BitSetSignature, Message, UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, Hash, decode_payload, encode_payload
from snowfield.formats.warp.predicate import (
    decode_results,
    encode_results,
    pack_predicate,
    unpack_predicate,
)
from snowfield.testing import custom_evm_chain
from tests.chains.customevm.driver import ADDRS, CHAIN_ID, FREE, GENESIS_TIME, Driver, sel, word

SUBNET = ID(b"\x05" * 32)
C_CHAIN = ID(b"\x0c" * 32)
L1_CHAIN = ID(b"\x11" * 32)
PRIMARY_KEYS = [bls.SecretKey.from_bytes(bytes([i + 1]) * 32) for i in range(4)]
SUBNET_KEYS = [bls.SecretKey.from_bytes(bytes([i + 40]) * 32) for i in range(5)]


class _PChain:
    """A validator state with the primary network and one subnet (equal weights)."""

    def p_chain_height(self) -> int:
        return 7

    def subnet_of(self, chain_id: ID) -> ID:
        known = {C_CHAIN: PRIMARY_NETWORK_ID, P_CHAIN_ID: PRIMARY_NETWORK_ID, L1_CHAIN: SUBNET}
        if chain_id not in known:
            raise InvalidParams(f"chain {chain_id} not found")
        return known[chain_id]

    def validators_at(self, height: int, subnet_id: ID) -> Iterable[ValidatorEntry]:
        keys = PRIMARY_KEYS if subnet_id == PRIMARY_NETWORK_ID else SUBNET_KEYS
        return [
            ValidatorEntry(NodeID(bytes([i + 1]) * 20), k.public_key().to_bytes(), 100)
            for i, k in enumerate(keys)
        ]


SNOW = SnowContext(12345, L1_CHAIN, SUBNET, _PChain())


def _signed(source: ID, keys: list[bls.SecretKey], signers: int) -> Message:
    unsigned = UnsignedMessage(12345, source, encode_payload(Hash(ID(b"\x99" * 32))))
    canonical = canonical_validator_set(
        ValidatorEntry(NodeID(bytes(20)), k.public_key().to_bytes(), 1) for k in keys
    )
    order = [v.public_key.to_bytes() for v in canonical.validators]
    by_key = {k.public_key().to_bytes(): k for k in keys}
    sig = bls.aggregate_signatures(
        [by_key[order[i]].sign(unsigned.encode()) for i in range(signers)]
    )
    return Message(unsigned, BitSetSignature.from_indices(range(signers), sig.to_bytes()))


def test_predicate_packing_and_results_match_avalanchego() -> None:
    for size in (0, 1, 31, 32, 33, 95):
        data = bytes(range(size))
        chunks = pack_predicate(data)
        assert len(chunks) == size // 32 + 1 and all(len(c) == 32 for c in chunks)
        assert unpack_predicate(chunks) == data
    with pytest.raises(InvalidParams, match="excess padding"):
        unpack_predicate([*pack_predicate(b"ab"), bytes(32)])
    with pytest.raises(InvalidParams, match="wrong delimiter"):
        unpack_predicate([b"ab".ljust(32, b"\x00")])
    with pytest.raises(InvalidParams, match="no delimiter found"):
        unpack_predicate([bytes(32)])
    # README "Predicate Map with a Single Transaction Result": bitset bytes 0x010203.
    bits = frozenset(i for i in range(24) if 0x010203 >> i & 1)
    tx, address = b"\x01" + bytes(31), b"\x02" + bytes(19)
    vector = (
        bytes(2)
        + (1).to_bytes(4, "big")
        + tx
        + (1).to_bytes(4, "big")
        + address
        + (3).to_bytes(4, "big")
        + b"\x01\x02\x03"
    )
    assert encode_results({tx: {address: bits}}) == vector
    assert decode_results(vector) == {tx: {address: bits}}
    assert encode_results({}) == bytes(6)


def test_signing_subnet_quorum_and_primary_network_signers() -> None:
    default = WarpConfig()
    # A primary-network message is verified against the receiving subnet's validators...
    assert verify_message(_signed(C_CHAIN, SUBNET_KEYS, 4), SNOW, default, 7) is None
    wrong = verify_message(_signed(C_CHAIN, PRIMARY_KEYS, 4), SNOW, default, 7)
    assert wrong is not None and wrong.startswith("cannot verify warp signature")
    # ...unless requirePrimaryNetworkSigners, except for P-Chain messages.
    strict = WarpConfig(require_primary_network_signers=True)
    assert verify_message(_signed(C_CHAIN, PRIMARY_KEYS, 3), SNOW, strict, 7) is None
    assert verify_message(_signed(P_CHAIN_ID, SUBNET_KEYS, 4), SNOW, strict, 7) is None
    # The quorum numerator comes from the config: 4 of 5 is 80%.
    assert verify_message(_signed(L1_CHAIN, SUBNET_KEYS, 4), SNOW, WarpConfig(80), 7) is None
    short = verify_message(_signed(L1_CHAIN, SUBNET_KEYS, 4), SNOW, WarpConfig(81), 7)
    assert short == (
        "cannot verify warp signature: signature weight is insufficient: 81*500 > 100*400"
    )
    unknown = verify_message(_signed(ID(b"\x77" * 32), SUBNET_KEYS, 4), SNOW, default, 7)
    assert unknown is not None and unknown.startswith("cannot retrieve validator set")
    # PredicateGas replaces the tuple's access-list gas (2400 + 1900 per key).
    chunks = pack_predicate(_signed(L1_CHAIN, SUBNET_KEYS, 4).encode())
    address = bytes.fromhex("0200000000000000000000000000000000000005")
    plain = 2_400 + 1_900 * len(chunks)
    assert extra_intrinsic_gas([(address, chunks)]) == (
        200_000 + 3_200 * len(chunks) + 500 * 4 - plain
    )


def test_warp_config_is_checked_as_subnet_evm_does() -> None:
    for quorum, error in ((101, "> denominator (100)"), (20, "< min numerator (33)")):
        genesis = genesis_json(
            1, {}, precompiles={"warpConfig": {"blockTimestamp": 0, "quorumNumerator": quorum}}
        )
        with pytest.raises(InvalidParams, match="invalid warp quorum ratio"):
            parse_genesis(genesis)
        with pytest.raises(InvalidParams, match=error.replace("(", r"\(").replace(")", r"\)")):
            parse_genesis(genesis)
    ok = genesis_json(1, {}, precompiles={"warpConfig": {"blockTimestamp": 0}})
    rules = parse_genesis(ok).config.rules
    assert rules.warp_config(0) == WarpConfig(67, False)
    # eth_getChainConfig shows every field of the config, as subnet-evm's JSON does.
    assert rules.chain_config_json(parse_genesis(ok).config)["warpConfig"] == {
        "blockTimestamp": 0,
        "quorumNumerator": 0,
        "requirePrimaryNetworkSigners": False,
    }


def test_sent_messages_survive_a_restart_and_leave_with_a_rewind() -> None:
    warp = {"warpConfig": {"blockTimestamp": 0}}
    driver = Driver(precompiles=warp)
    payload = b"kept for the signers" * 2
    call = sel("sendWarpMessage(bytes)") + word(32) + word(len(payload)) + payload.ljust(64, b"\0")
    receipt = driver.send(0, WARP_ADDRESS, call)
    (log,) = receipt.logs
    message_id = log.topics[2]
    stored = driver.chain.warp_message(message_id)
    assert stored is not None
    unsigned = UnsignedMessage.decode(stored)
    assert unsigned.id.raw == message_id and unsigned.source_chain_id == NO_CHAIN
    assert decode_payload(unsigned.payload) == AddressedCall(ADDRS[0], payload)
    genesis = genesis_json(
        CHAIN_ID, dict.fromkeys(ADDRS, 10**24), timestamp=GENESIS_TIME, fee=FREE, precompiles=warp
    )
    again = custom_evm_chain(genesis, journal=driver.chain.journal)
    assert again.warp_message(message_id) == stored
    assert again.accepted_block(again.head.hash)
    again.rewind(0)
    assert again.warp_message(message_id) is None
    # A payload above the payload codec's 24 KiB fails the call (gas consumed); the tx is mined.
    big = b"\x01" * (24 * 1024)
    call = sel("sendWarpMessage(bytes)") + word(32) + word(len(big)) + big
    failed = driver.send(0, WARP_ADDRESS, call, gas=2_000_000)
    assert failed.status == 0 and failed.gas_used == 2_000_000 and not failed.logs
