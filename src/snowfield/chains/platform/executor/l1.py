"""Executors of ACP-77 L1 txs: ConvertSubnetToL1Tx, IncreaseL1ValidatorBalanceTx,
DisableL1ValidatorTx. RegisterL1ValidatorTx and SetL1ValidatorWeightTx need a verified Warp
message (a later step) and are rejected with a clear error."""

from __future__ import annotations

from dataclasses import replace

from snowfield.chains.platform.executor.base import (
    Effect,
    Env,
    SpendRequest,
    executes,
    spend,
    verify_auth,
)
from snowfield.chains.platform.executor.staking import check_signer
from snowfield.chains.platform.executor.subnets import permissioned, subnet_for_change
from snowfield.chains.platform.records import L1Validator
from snowfield.chains.platform.state import PlatformState
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, SHORT_ID_LEN
from snowfield.formats.platform.components import UTXO, UTXOID
from snowfield.formats.platform.l1_txs import (
    ConvertSubnetToL1Tx,
    DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx,
    PChainOwner,
    initial_validation_id,
)
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput
from snowfield.formats.platform.txs import Tx
from snowfield.formats.warp.platform_messages import conversion_id_of


def owners(owner: PChainOwner) -> OutputOwners:
    return OutputOwners(0, owner.threshold, owner.addresses)


def _check_validators(tx: ConvertSubnetToL1Tx) -> None:
    if not tx.validators:
        raise InvalidParams("conversion must include at least one validator")
    for validator in tx.validators:
        if len(validator.node_id) != SHORT_ID_LEN or not any(validator.node_id):
            raise InvalidParams("invalid node ID")
        if validator.weight == 0:
            raise InvalidParams("validator weight must be non-zero")
        check_signer(validator.signer)


def conversion_id(tx: ConvertSubnetToL1Tx) -> ID:
    return conversion_id_of(tx)


@executes(ConvertSubnetToL1Tx)
def convert(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, ConvertSubnetToL1Tx)
    state = env.state
    subnet = subnet_for_change(env, tx, unsigned.subnet_id, unsigned.subnet_auth)
    if not subnet.is_permissioned:
        raise InvalidParams(f"subnet {subnet.subnet_id} is already an L1")
    _check_validators(unsigned)
    burn = sum(v.balance for v in unsigned.validators)
    spent = spend(env, tx, unsigned.base, SpendRequest(burn=burn, auths=1))
    converted = replace(
        permissioned(subnet),
        conversion_id=conversion_id(unsigned),
        manager_chain_id=unsigned.chain_id,
        manager_address=unsigned.address,
    )

    def apply() -> None:
        spent.apply(env)
        state.subnets[subnet.subnet_id] = converted
        for index, v in enumerate(unsigned.validators):
            validation_id = initial_validation_id(subnet.subnet_id, index)
            record = L1Validator(
                validation_id,
                subnet.subnet_id,
                v.node_id,
                v.signer.public_key,
                v.remaining_balance_owner,
                v.deactivation_owner,
                state.timestamp,
                v.weight,
                v.balance,
                height=state.height,
            )
            set_l1_validator(state, record)

    return apply


def set_l1_validator(state: PlatformState, record: L1Validator) -> None:
    """Stores `record`, keeping the count of active validators the fee state charges."""
    previous = state.l1_validators.get(record.validation_id)
    delta = int(record.active) - int(previous is not None and previous.active)
    fee_state = state.validator_fee_state
    state.validator_fee_state = replace(fee_state, current=fee_state.current + delta)
    state.l1_validators[record.validation_id] = record


def _validator(env: Env, validation_id: ID) -> L1Validator:
    record = env.state.l1_validators.get(validation_id)
    if record is None:
        raise InvalidParams(f"L1 validator {validation_id} not found")
    return record


@executes(IncreaseL1ValidatorBalanceTx)
def increase_balance(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, IncreaseL1ValidatorBalanceTx)
    record = _validator(env, unsigned.validation_id)
    if unsigned.balance == 0:
        raise InvalidParams("balance increase must be non-zero")
    spent = spend(env, tx, unsigned.base, SpendRequest(burn=unsigned.balance))

    def apply() -> None:
        spent.apply(env)
        current = env.state.l1_validators[record.validation_id]
        set_l1_validator(env.state, replace(current, balance=current.balance + unsigned.balance))

    return apply


@executes(DisableL1ValidatorTx)
def disable(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, DisableL1ValidatorTx)
    record = _validator(env, unsigned.validation_id)
    owner = owners(record.deactivation_owner)
    verify_auth(env, tx, owner, unsigned.disable_auth, "unauthorized modification")
    spent = spend(env, tx, unsigned.base, SpendRequest(auths=1))
    index = len(unsigned.base.outputs)

    def apply() -> None:
        spent.apply(env)
        current = env.state.l1_validators[record.validation_id]
        if current.balance:
            refund = TransferOutput(current.balance, owners(current.remaining_balance_owner))
            utxo = UTXO(UTXOID(tx.id, index), env.state.avax_asset_id, refund)
            env.state.utxos.add(utxo)
        set_l1_validator(env.state, replace(current, balance=0))

    return apply
