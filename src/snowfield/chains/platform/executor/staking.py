"""Executors of primary-network staking: AddPermissionlessValidatorTx / DelegatorTx.

The rules are avalanchego's (txs/executor/staker_tx_verification.go) after Durango: the start
is the chain time, whatever the tx says; stake bounds, durations, delegation fee, the maximum
delegation weight and the BLS proof of possession are checked; the potential reward is
computed at once and added to the current supply (an aborted reward removes it again).
"""

from __future__ import annotations

from collections.abc import Sequence

from snowfield.chains.platform import rewards
from snowfield.chains.platform.config import PERCENT_DENOMINATOR, StakingConfig
from snowfield.chains.platform.executor.base import (
    Effect,
    Env,
    SpendRequest,
    executes,
    output_owners,
    spend,
)
from snowfield.chains.platform.stakers import Staker, StakerKind
from snowfield.crypto import bls
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, PRIMARY_NETWORK_ID
from snowfield.formats.platform.components import TransferableOutput
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.formats.platform.staking_txs import (
    AddDelegatorTx,
    AddPermissionlessDelegatorTx,
    AddPermissionlessValidatorTx,
    AddValidatorTx,
)
from snowfield.formats.platform.txs import Tx
from snowfield.formats.platform.types import Signer


def _check_stake(env: Env, stake: Sequence[TransferableOutput], weight: int) -> None:
    if any(out.asset_id != env.state.avax_asset_id for out in stake):
        raise InvalidParams("incorrect staked assetID")
    if sum(out.output.amount for out in stake) != weight:
        raise InvalidParams("validator weight mismatch")


def _duration(config: StakingConfig, start: int, end: int) -> int:
    duration = end - start
    if duration < config.min_stake_duration:
        raise InvalidParams("staking period is too short")
    if duration > config.max_stake_duration:
        raise InvalidParams("staking period is too long")
    return duration


def check_signer(signer: Signer) -> bytes:
    """The BLS public key of a verified proof of possession."""
    if not isinstance(signer, ProofOfPossession):
        raise InvalidParams("primary network validators must have a BLS proof of possession")
    public_key = bls.PublicKey.from_bytes(signer.public_key)
    if not bls.verify_proof_of_possession(public_key, bls.Signature.from_bytes(signer.proof)):
        raise InvalidParams("invalid proof of possession")
    return signer.public_key


def _primary(subnet_id: ID) -> None:
    if subnet_id != PRIMARY_NETWORK_ID:
        raise InvalidParams("permissionless subnet stakers are not supported post-Etna")


def _reward(env: Env, duration: int, weight: int) -> int:
    state = env.state
    return rewards.calculate(state.params.staking.rewards, duration, weight, state.current_supply)


def _add(env: Env, staker: Staker, apply_spend: Effect) -> Effect:
    def apply() -> None:
        apply_spend()
        env.state.current_supply += staker.potential_reward
        env.state.stakers.add(staker)

    return apply


@executes(AddPermissionlessValidatorTx)
def add_validator(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, AddPermissionlessValidatorTx)
    state, config, validator = env.state, env.state.params.staking, unsigned.validator
    _primary(unsigned.subnet_id)
    _check_stake(env, unsigned.stake, validator.weight)
    if unsigned.delegation_shares > PERCENT_DENOMINATOR:
        raise InvalidParams("a staker can only require at most 100% reward")
    if unsigned.delegation_shares < config.min_delegation_fee:
        raise InvalidParams("staker charges an insufficient delegation fee")
    if validator.weight < config.min_validator_stake:
        raise InvalidParams("weight of this validator is too low")
    if validator.weight > config.max_validator_stake:
        raise InvalidParams("weight of this validator is too large")
    duration = _duration(config, state.timestamp, validator.end)
    if (PRIMARY_NETWORK_ID, validator.node_id) in state.stakers.validators:
        raise InvalidParams(f"attempted to issue duplicate validation for {validator.node_id}")
    public_key = check_signer(unsigned.signer)
    owners = (
        output_owners(unsigned.validator_rewards_owner),
        output_owners(unsigned.delegator_rewards_owner),
    )
    spent = spend(env, tx, unsigned.base, SpendRequest(extra_outputs=unsigned.stake))
    staker = Staker(
        tx.id,
        StakerKind.PRIMARY_VALIDATOR,
        validator.node_id,
        PRIMARY_NETWORK_ID,
        validator.weight,
        state.timestamp,
        validator.end,
        _reward(env, duration, validator.weight),
        public_key,
        unsigned.delegation_shares,
        unsigned.stake,
        len(unsigned.base.outputs),
        *owners,
    )
    return _add(env, staker, lambda: spent.apply(env))


@executes(AddPermissionlessDelegatorTx)
def add_delegator(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, AddPermissionlessDelegatorTx)
    state, config, delegation = env.state, env.state.params.staking, unsigned.validator
    _primary(unsigned.subnet_id)
    _check_stake(env, unsigned.stake, delegation.weight)
    if delegation.weight < config.min_delegator_stake:
        raise InvalidParams("weight of this delegator is too low")
    duration = _duration(config, state.timestamp, delegation.end)
    key = (PRIMARY_NETWORK_ID, delegation.node_id)
    validator = state.stakers.validators.get(key)
    if validator is None:
        raise InvalidParams(f"{delegation.node_id} isn't a current or pending validator")
    if delegation.end > validator.end:
        raise InvalidParams("proposed staking period is not inside dependant staking period")
    delegated = state.stakers.delegated_weight(*key)
    max_weight = min(
        validator.weight * config.max_validator_weight_factor, config.max_validator_stake
    )
    if validator.weight + delegated + delegation.weight > max_weight:
        raise InvalidParams("validator would be over delegated")
    owner = output_owners(unsigned.delegation_rewards_owner)
    spent = spend(env, tx, unsigned.base, SpendRequest(extra_outputs=unsigned.stake))
    staker = Staker(
        tx.id,
        StakerKind.PRIMARY_DELEGATOR,
        delegation.node_id,
        PRIMARY_NETWORK_ID,
        delegation.weight,
        state.timestamp,
        delegation.end,
        _reward(env, duration, delegation.weight),
        stake=unsigned.stake,
        outputs_count=len(unsigned.base.outputs),
        rewards_owner=owner,
    )
    return _add(env, staker, lambda: spent.apply(env))


@executes(AddValidatorTx, AddDelegatorTx)
def apricot_staker(env: Env, tx: Tx) -> Effect:
    raise InvalidParams(f"{type(tx.unsigned).__name__} is not permitted post-Durango")
