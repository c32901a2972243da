"""The custom EVM's base fee and block gas cost, block by block, against an independent
computation of subnet-evm's published algorithm (customheader: window, base fee, block gas
cost; VerifyBlockFee)."""

from __future__ import annotations

import rlp
from eth_account import Account
from hypothesis import given, settings
from hypothesis import strategies as st

from snowfield.chains.evm.customgenesis import genesis_json
from snowfield.chains.evm.execution.transactions import decode_tx
from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.chains.evm.model import SubnetEvmHeader
from snowfield.crypto.hashing import keccak
from snowfield.testing import custom_evm_chain

KEYS = [Account.from_key(bytes([i + 1]) * 32) for i in range(4)]
GENESIS_TIME = 1_700_000_000
FEE = FeeConfig(
    gas_limit=8_000_000,
    target_block_rate=2,
    min_base_fee=25 * 10**9,
    target_gas=100_000,  # low, so a few transfers push the base fee up
    base_fee_change_denominator=36,
    min_block_gas_cost=0,
    max_block_gas_cost=1_000_000,
    block_gas_cost_step=200_000,
)


def reference(
    parent_number: int,
    parent_fee: int,
    window: list[int],
    parent_gas: int,
    parent_cost: int,
    elapsed: int,
) -> tuple[int, int, list[int]]:
    """(base fee, block gas cost, window) of the child, written from the Go code's text."""
    if parent_number == 0:
        new_window = [0] * 10
        fee = FEE.min_base_fee
    else:
        new_window = list(window)
        new_window[9] += parent_gas
        new_window = [0] * 10 if elapsed >= 10 else new_window[elapsed:] + [0] * elapsed
        total = sum(new_window)
        fee = parent_fee
        if total > FEE.target_gas:
            delta = (total - FEE.target_gas) * parent_fee // FEE.target_gas // 36
            fee = parent_fee + max(delta, 1)
        elif total < FEE.target_gas:
            delta = max((FEE.target_gas - total) * parent_fee // FEE.target_gas // 36, 1)
            if elapsed // 10 > 1:
                delta *= elapsed // 10
            fee = max(parent_fee - delta, FEE.min_base_fee)
    if elapsed < FEE.target_block_rate:
        cost = parent_cost + FEE.block_gas_cost_step * (FEE.target_block_rate - elapsed)
    else:
        cost = max(parent_cost - FEE.block_gas_cost_step * (elapsed - FEE.target_block_rate), 0)
    return fee, min(cost, FEE.max_block_gas_cost), new_window


def _transfer(key: Account, nonce: int, tip: int, max_fee: int) -> bytes:
    tx = {
        "to": bytes([0xAB] * 20),
        "value": 1,
        "gas": 21_000,
        "nonce": nonce,
        "chainId": 99_999,
        "type": 2,
        "maxFeePerGas": max_fee,
        "maxPriorityFeePerGas": tip,
    }
    return bytes(Account.sign_transaction(tx, key.key).raw_transaction)


def test_base_fee_and_block_gas_cost_follow_subnet_evms_algorithm_block_by_block() -> None:
    # (seconds after the parent, transfers): bursts within the window, a pause, slow blocks.
    plan = [(1, 3), (0, 6), (1, 8), (2, 2), (0, 4), (4, 1), (1, 5), (13, 2), (25, 1), (3, 7)]
    fees = _drive(plan)
    assert max(fees) > FEE.min_base_fee and fees[-1] < max(fees)  # up in bursts, down after


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 9)), min_size=1, max_size=12))
def test_any_plan_of_intervals_and_gas_matches_the_algorithm(
    plan: list[tuple[int, int]],
) -> None:
    _drive(plan)


def _drive(plan: list[tuple[int, int]]) -> list[int]:
    """Mines `plan` checking every block against the reference; the base fees."""
    genesis = genesis_json(
        99_999,
        {bytes.fromhex(k.address[2:]): 10**24 for k in KEYS},
        fee=FEE,
        timestamp=GENESIS_TIME,
    )
    chain = custom_evm_chain(genesis)
    genesis_header = chain.head.header
    assert isinstance(genesis_header, SubnetEvmHeader)
    assert (genesis_header.base_fee, genesis_header.block_gas_cost) == (FEE.min_base_fee, 0)
    nonces = [0] * len(KEYS)
    now = GENESIS_TIME
    for elapsed, count in plan:
        parent = chain.head.header
        window = (
            [0] * 10
            if parent.number == 0
            else [int.from_bytes(parent.extra_data[i * 8 : i * 8 + 8], "big") for i in range(10)]
        )
        want_fee, want_cost, want_window = reference(
            parent.number,
            parent.base_fee,
            window,
            parent.gas_used,
            parent.block_gas_cost,
            elapsed,
        )
        now += elapsed
        assert chain.next_base_fee(now) == want_fee
        # Tips that buy twice the block gas cost at this base fee, spread over the transfers.
        tip = -(-2 * want_cost * want_fee // (21_000 * count)) + 1
        for i in range(count):
            sender = i % len(KEYS)
            chain.submit_decoded(
                decode_tx(_transfer(KEYS[sender], nonces[sender], tip, want_fee * 3 + tip))
            )
            nonces[sender] += 1
        block = chain.mine(timestamp=now)
        assert block is not None and len(block.txs) == count
        header = block.header
        assert (header.base_fee, header.block_gas_cost) == (want_fee, want_cost)
        # The fee window, then (after Durango) the block's empty predicate results.
        window = b"".join(v.to_bytes(8, "big") for v in want_window)
        assert header.extra_data == window + bytes(6)
        assert header.gas_used == 21_000 * count and header.gas_limit == FEE.gas_limit
        fields = rlp.decode(header.encode())
        assert len(fields) == 20 and block.hash == keccak(header.encode())
        assert SubnetEvmHeader.decode(header.encode()) == header
    return [b.header.base_fee for b in chain.blocks]


def test_a_block_whose_tips_miss_the_block_gas_cost_waits_until_the_cost_has_fallen() -> None:
    genesis = genesis_json(
        99_999, {bytes.fromhex(KEYS[0].address[2:]): 10**24}, fee=FEE, timestamp=GENESIS_TIME
    )
    chain = custom_evm_chain(genesis)
    chain.submit_decoded(decode_tx(_transfer(KEYS[0], 0, 10**9, 10**12)))
    first = chain.mine(timestamp=GENESIS_TIME + 2)  # block 1: cost 0 + 200k*(2-2) = 0
    assert first is not None and first.header.block_gas_cost == 0
    # One second later the cost is 200,000 gas: a 1 gwei tip on 21,000 gas buys 840.
    chain.submit_decoded(decode_tx(_transfer(KEYS[0], 1, 10**9, 10**12)))
    assert chain.mine(timestamp=GENESIS_TIME + 3) is None
    assert len(chain.mempool) == 1 and chain.head.number == 1
    # At the target rate the cost is back to 0 and the same transaction is included.
    later = chain.mine(timestamp=GENESIS_TIME + 4)
    assert later is not None and len(later.txs) == 1 and later.header.block_gas_cost == 0
