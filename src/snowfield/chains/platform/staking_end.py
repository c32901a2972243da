"""The end of a primary-network staker: stake returned, rewards paid on commit, supply adjusted.

Facts of avalanchego `txs/executor/proposal_tx_executor.go` (rewardValidatorTx /
rewardDelegatorTx, post-Cortina): returned stake takes output indexes len(outs)+i; the
validator's reward UTXO is len(outs)+len(stake), its accrued delegatee rewards the next index
(or that same index when the reward is aborted); a delegator's reward is split by the
validator's delegation fee and the validator's share accrues until the validator ends.
"""

from __future__ import annotations

from snowfield.chains.platform import rewards
from snowfield.chains.platform.stakers import Staker, StakerKind
from snowfield.chains.platform.state import PlatformState
from snowfield.formats.platform.components import UTXO, UTXOID
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput


def end_staker(state: PlatformState, staker: Staker, commit: bool) -> None:
    """Removes `staker` and settles it (`commit`: the RewardValidatorTx was committed)."""
    for i, out in enumerate(staker.stake):
        state.utxos.add(
            UTXO(UTXOID(staker.tx_id, staker.outputs_count + i), out.asset_id, out.output)
        )
    if staker.kind is StakerKind.PRIMARY_VALIDATOR:
        _end_validator(state, staker, commit)
    else:
        _end_delegator(state, staker, commit)
    if not commit:
        state.current_supply -= staker.potential_reward


def _pay(
    state: PlatformState, staker: Staker, offset: int, amount: int, owner: OutputOwners
) -> None:
    index = staker.outputs_count + len(staker.stake) + offset
    utxo = UTXO(UTXOID(staker.tx_id, index), state.avax_asset_id, TransferOutput(amount, owner))
    state.utxos.add(utxo)
    state.reward_utxos.setdefault(staker.tx_id, []).append(utxo)


def _end_validator(state: PlatformState, staker: Staker, commit: bool) -> None:
    key = (staker.subnet_id, staker.node_id)
    delegatee_reward = state.stakers.delegatee_rewards.get(key, 0)
    state.stakers.remove(staker)
    offset = 0
    if commit and staker.potential_reward > 0 and staker.rewards_owner is not None:
        _pay(state, staker, 0, staker.potential_reward, staker.rewards_owner)
        offset = 1
    if delegatee_reward > 0 and staker.delegation_rewards_owner is not None:
        _pay(state, staker, offset, delegatee_reward, staker.delegation_rewards_owner)


def _end_delegator(state: PlatformState, staker: Staker, commit: bool) -> None:
    key = (staker.subnet_id, staker.node_id)
    validator = state.stakers.validators[key]
    state.stakers.remove(staker)
    if not commit:
        return
    delegatee_reward, delegator_reward = rewards.split(
        staker.potential_reward, validator.delegation_shares
    )
    if delegator_reward > 0 and staker.rewards_owner is not None:
        _pay(state, staker, 0, delegator_reward, staker.rewards_owner)
    if delegatee_reward > 0:
        accrued = state.stakers.delegatee_rewards.get(key, 0)
        state.stakers.delegatee_rewards[key] = accrued + delegatee_reward
