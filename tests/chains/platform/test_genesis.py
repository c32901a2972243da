"""The local-network genesis: ewoq funded, stakers validating with their BLS keys for the local
durations (each staker `offset` shorter), the X and C CreateChainTxs recorded, full fee capacity."""

from __future__ import annotations

import json
from pathlib import Path

from snowfield.chains.atomic import SharedMemory
from snowfield.chains.platform import rewards
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.genesis import (
    AVM_ID,
    EVM_ID,
    EWOQ_ADDRESS,
    LOCAL_EWOQ_AMOUNT,
    LOCAL_STAKER_WEIGHT,
    X_FX_IDS,
    GenesisChain,
    LocalStaker,
    local_config,
)
from snowfield.formats.ids import NodeID
from tests.chains.platform.wallet import AVAX_ID, KEY2, START, address

VECTORS = Path(__file__).parents[2] / "crypto/vectors/avalanchego_local/initial_stakers.json"


def _stakers() -> tuple[LocalStaker, ...]:
    return tuple(
        LocalStaker(
            NodeID.from_string(s["nodeID"]),
            bytes.fromhex(s["signer"]["publicKey"][2:]),
            bytes.fromhex(s["signer"]["proofOfPossession"][2:]),
        )
        for s in json.loads(VECTORS.read_text())
    )


def test_local_genesis_funds_stakes_and_records_the_chains() -> None:
    chains = (
        GenesisChain("X-Chain", AVM_ID, b"x", X_FX_IDS),
        GenesisChain("C-Chain", EVM_ID, b"{}"),
    )
    config = local_config(12345, AVAX_ID, START, _stakers(), chains, (address(KEY2),))
    chain = PlatformChain.from_genesis(config, SharedMemory())
    assert chain.balance([EWOQ_ADDRESS]).unlocked == LOCAL_EWOQ_AMOUNT
    assert chain.balance([address(KEY2)]).unlocked == 1_000_000 * 10**9
    validators = chain.current_validators()
    assert len(validators) == len(_stakers()) == 5
    ends = sorted((v.staker.end for v in validators), reverse=True)
    assert ends == [START + 31_536_000 - i * 5_400 for i in range(5)]
    assert {v.staker.public_key for v in validators} == {s.public_key for s in _stakers()}
    assert sorted(v.staker.delegation_shares for v in validators) == [
        62_500,
        125_000,
        250_000,
        500_000,
        1_000_000,
    ]
    first = rewards.calculate(
        config.params.staking.rewards,
        31_536_000,
        LOCAL_STAKER_WEIGHT,
        LOCAL_EWOQ_AMOUNT + 10**15 + 5 * LOCAL_STAKER_WEIGHT,
    )
    assert max(v.staker.potential_reward for v in validators) == first
    assert {(c.name, c.vm_id) for c in chain.blockchains()} == {
        ("X-Chain", AVM_ID),
        ("C-Chain", EVM_ID),
    }
    for blockchain in chain.blockchains():
        assert chain.tx(blockchain.blockchain_id) is not None  # its CreateChainTx
    fee_state, price = chain.fee_state
    assert fee_state.capacity == chain.fee_config.max_capacity and price == 1
    assert chain.height == 0 and len(chain.validators_at(0)) == 5
