"""Primary-network staking: the rules of AddPermissionless(Validator|Delegator)Tx and the whole
lifecycle (stake, delegate, time passes, reward UTXOs, the validator leaves the set)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from snowfield.chains.platform import rewards
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.config import AVAX, DAY
from snowfield.chains.platform.genesis import Allocation
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.errors import InvalidParams
from snowfield.formats.ids import P_CHAIN_ID, PRIMARY_NETWORK_ID, NodeID
from snowfield.formats.platform.blocks import BanffProposalBlock
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import TransferInput, TransferOutput
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.formats.platform.stakeable import LockIn, LockOut
from snowfield.formats.platform.staking_txs import (
    AddPermissionlessDelegatorTx,
    AddPermissionlessValidatorTx,
    Validator,
)
from snowfield.formats.platform.txs import Tx
from tests.chains.platform.wallet import (
    AVAX_ID,
    KEY2,
    START,
    Wallet,
    address,
    new_chain,
    owner,
    pop,
    sign,
)

NODE = NodeID(b"\x42" * 20)
VALIDATOR_STAKE, DELEGATOR_STAKE = 2_000 * AVAX, 500 * AVAX


def _stake(amount: int) -> tuple[TransferableOutput, ...]:
    return (TransferableOutput(AVAX_ID, TransferOutput(amount, owner(EWOQ_KEY))),)


def _validator_tx(
    chain: PlatformChain,
    end: int,
    weight: int = VALIDATOR_STAKE,
    shares: int = 100_000,
    signer: ProofOfPossession | None = None,
) -> Tx:
    def make(base: BaseTxFields) -> AddPermissionlessValidatorTx:
        return AddPermissionlessValidatorTx(
            base,
            Validator(NODE, 0, end, weight),  # start 0: post-Durango the chain time is used
            PRIMARY_NETWORK_ID,
            signer or pop(b"new validator"),
            _stake(weight),
            owner(EWOQ_KEY),
            owner(KEY2),
            shares,
        )

    return Wallet(chain).build(make, weight)


def _delegator_tx(chain: PlatformChain, end: int, weight: int = DELEGATOR_STAKE) -> Tx:
    def make(base: BaseTxFields) -> AddPermissionlessDelegatorTx:
        validator = Validator(NODE, 0, end, weight)
        return AddPermissionlessDelegatorTx(
            base, validator, PRIMARY_NETWORK_ID, _stake(weight), owner(KEY2)
        )

    return Wallet(chain).build(make, weight)


def test_staking_rules_reject_out_of_bounds_txs() -> None:
    chain = new_chain()
    end = START + 2 * DAY
    with pytest.raises(InvalidParams, match="weight of this validator is too low"):
        chain.issue(_validator_tx(chain, end, weight=AVAX).encode())
    with pytest.raises(InvalidParams, match="staking period is too short"):
        chain.issue(_validator_tx(chain, START + 3600).encode())
    with pytest.raises(InvalidParams, match="staking period is too long"):
        chain.issue(_validator_tx(chain, START + 400 * DAY).encode())
    with pytest.raises(InvalidParams, match="insufficient delegation fee"):
        chain.issue(_validator_tx(chain, end, shares=1).encode())
    bad_pop = replace(pop(b"new validator"), proof=pop(b"other").proof)
    with pytest.raises(InvalidParams, match="invalid proof of possession"):
        chain.issue(_validator_tx(chain, end, signer=bad_pop).encode())
    with pytest.raises(InvalidParams, match="isn't a current or pending validator"):
        chain.issue(_delegator_tx(chain, end).encode())
    chain.issue(_validator_tx(chain, end).encode())
    chain.build_block(START + 1)
    with pytest.raises(InvalidParams, match="duplicate validation"):
        chain.issue(_validator_tx(chain, end).encode())
    with pytest.raises(InvalidParams, match="not inside dependant staking period"):
        chain.issue(_delegator_tx(chain, end + 1).encode())
    with pytest.raises(InvalidParams, match="over delegated"):
        chain.issue(_delegator_tx(chain, end, weight=9_000 * AVAX).encode())


def test_staking_lifecycle_pays_the_formula_rewards_and_removes_the_validator() -> None:
    chain = new_chain()
    config = chain.state.params.staking.rewards
    validator_end, delegator_end = START + 10 + 3 * DAY, START + 10 + 2 * DAY
    supply0 = chain.current_supply

    add = _validator_tx(chain, validator_end)
    chain.issue(add.encode())
    chain.build_block(START + 10)  # the staker starts at this block's time, not the tx's 0
    validator_reward = rewards.calculate(config, 3 * DAY, VALIDATOR_STAKE, supply0)
    assert chain.current_supply == supply0 + validator_reward
    (info,) = chain.current_validators(node_ids=[NODE])
    assert info.staker.start == START + 10 and info.staker.potential_reward == validator_reward

    delegate = _delegator_tx(chain, delegator_end)
    chain.issue(delegate.encode())
    chain.build_block(START + 10)
    delegator_total = rewards.calculate(
        config, 2 * DAY, DELEGATOR_STAKE, supply0 + validator_reward
    )
    (info,) = chain.current_validators(node_ids=[NODE])
    assert [d.tx_id for d in info.delegators] == [delegate.id]
    assert chain.validators_at(chain.height)[NODE.raw][0] == VALIDATOR_STAKE + DELEGATOR_STAKE

    blocks = chain.build_block(validator_end + 100)
    kinds = [type(b.block).__name__ for b in blocks]
    assert kinds.count("BanffProposalBlock") == 2 and kinds.count("BanffCommitBlock") == 2

    validator_cut, delegator_cut = rewards.split(delegator_total, 100_000)
    delegator_utxos = chain.reward_utxos(delegate.id)
    assert [u.output.amount for u in delegator_utxos] == [delegator_cut]
    assert [u.utxo_id.output_index for u in delegator_utxos] == [2]  # len(outs)=1 + len(stake)=1
    validator_utxos = chain.reward_utxos(add.id)
    assert [u.output.amount for u in validator_utxos] == [validator_reward, validator_cut]
    assert [u.utxo_id.output_index for u in validator_utxos] == [2, 3]
    assert validator_utxos[1].output.owners == owner(KEY2)  # type: ignore[attr-defined]
    assert chain.current_validators(node_ids=[NODE]) == []
    assert NODE.raw not in chain.validators_at(chain.height)
    assert NODE.raw in chain.validators_at(2)  # history per height
    assert chain.stake_of([address(EWOQ_KEY)])[0] == 2 * 2_000 * AVAX  # the genesis stakers
    assert chain.current_supply == supply0 + validator_reward + delegator_total
    proposals = [b.block for b in blocks if isinstance(b.block, BanffProposalBlock)]
    assert [chain.tx_status(p.tx.id)[0] for p in proposals] == ["Committed", "Committed"]


def test_a_stopped_validator_gets_its_stake_back_but_no_reward() -> None:
    chain = new_chain()
    supply0, end = chain.current_supply, START + 2 * DAY
    add = _validator_tx(chain, end)
    chain.issue(add.encode())
    chain.build_block(START)
    chain.observed_uptime = lambda node: (0.0, False) if node == NODE else (100.0, True)
    before = chain.balance([address(EWOQ_KEY)]).unlocked
    blocks = chain.build_block(end)
    assert [type(b.block).__name__ for b in blocks][-1] == "BanffAbortBlock"
    assert chain.reward_utxos(add.id) == []
    assert chain.balance([address(EWOQ_KEY)]).unlocked == before + VALIDATOR_STAKE
    assert chain.current_supply == supply0
    proposal = next(b.block for b in blocks if isinstance(b.block, BanffProposalBlock))
    assert chain.tx_status(proposal.tx.id)[0] == "Aborted"


def test_stakeable_locked_funds_can_stake_and_come_back_locked() -> None:
    lock = START + 30 * DAY
    locked_owner = owner(KEY2)
    chain = new_chain(
        allocations=[
            Allocation(address(KEY2), 5_000 * AVAX, lock),
            Allocation(address(KEY2), 10 * AVAX),
        ]
    )
    utxos, _ = chain.utxos([address(KEY2)])
    locked = next(u for u in utxos if isinstance(u.output, LockOut))
    free = next(u for u in utxos if not isinstance(u.output, LockOut))
    inputs = sorted(
        [
            TransferableInput(
                locked.utxo_id, AVAX_ID, LockIn(lock, TransferInput(5_000 * AVAX, (0,)))
            ),
            TransferableInput(free.utxo_id, AVAX_ID, TransferInput(10 * AVAX, (0,))),
        ],
        key=lambda i: i.sort_key(),
    )
    change = (
        TransferableOutput(AVAX_ID, LockOut(lock, TransferOutput(3_000 * AVAX, locked_owner))),
        TransferableOutput(AVAX_ID, TransferOutput(9 * AVAX, locked_owner)),
    )
    stake = (
        TransferableOutput(AVAX_ID, LockOut(lock, TransferOutput(VALIDATOR_STAKE, locked_owner))),
    )
    base = BaseTxFields(
        12345, P_CHAIN_ID, tuple(sorted(change, key=lambda o: o.sort_key())), tuple(inputs)
    )
    unsigned = AddPermissionlessValidatorTx(
        base,
        Validator(NODE, 0, START + 2 * DAY, VALIDATOR_STAKE),
        PRIMARY_NETWORK_ID,
        pop(b"locked validator"),
        stake,
        locked_owner,
        locked_owner,
        20_000,
    )
    tx = sign(unsigned, [[KEY2], [KEY2]])
    chain.issue(tx.encode())
    chain.build_block(START)
    assert chain.balance([address(KEY2)]).locked_stakeable == 3_000 * AVAX
    assert chain.stake_of([address(KEY2)])[0] == VALIDATOR_STAKE
    chain.build_block(START + 2 * DAY)
    balance = chain.balance([address(KEY2)])
    assert balance.locked_stakeable == 5_000 * AVAX  # the stake came back, still locked
    assert balance.unlocked == 9 * AVAX + chain.reward_utxos(tx.id)[0].output.amount


def test_a_tx_verified_before_another_in_its_block_is_checked_again() -> None:
    # Both delegations fit alone; together they over-delegate. Verified at issue on the same
    # state, the block applies the first's kept effect but must execute the second anew.
    chain = new_chain(allocations=(Allocation(address(KEY2), 100_000 * AVAX),))
    end = START + 2 * DAY
    chain.issue(_validator_tx(chain, end).encode())
    chain.build_block(START + 1)
    weight = 4_500 * AVAX  # 2,000 + 2 x 4,500 > 5 x 2,000

    def delegation(secret: bytes) -> Tx:
        def make(base: BaseTxFields) -> AddPermissionlessDelegatorTx:
            validator = Validator(NODE, 0, end, weight)
            stake = (TransferableOutput(AVAX_ID, TransferOutput(weight, owner(secret))),)
            return AddPermissionlessDelegatorTx(
                base, validator, PRIMARY_NETWORK_ID, stake, owner(secret)
            )

        return Wallet(chain, secret).build(make, weight)

    first, second = delegation(EWOQ_KEY), delegation(KEY2)
    chain.issue(first.encode(), now=START + 1)
    chain.issue(second.encode(), now=START + 1)
    chain.build_block(START + 1)
    assert chain.tx_status(first.id)[0] == "Committed"
    status, reason = chain.tx_status(second.id)
    assert status == "Dropped" and reason == "validator would be over delegated"
