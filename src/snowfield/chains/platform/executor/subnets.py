"""Executors of subnet txs: CreateSubnetTx, CreateChainTx, TransferSubnetOwnershipTx, and the
permissioned subnet validators (AddSubnetValidatorTx, RemoveSubnetValidatorTx)."""

from __future__ import annotations

import re
from dataclasses import replace

from snowfield.chains.platform.executor.base import (
    Effect,
    Env,
    SpendRequest,
    executes,
    output_owners,
    spend,
    verify_auth,
)
from snowfield.chains.platform.records import Blockchain, Subnet
from snowfield.chains.platform.stakers import Staker, StakerKind
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, PRIMARY_NETWORK_ID
from snowfield.formats.platform.staking_txs import AddSubnetValidatorTx, RemoveSubnetValidatorTx
from snowfield.formats.platform.subnet_txs import (
    CreateChainTx,
    CreateSubnetTx,
    TransferSubnetOwnershipTx,
    TransformSubnetTx,
)
from snowfield.formats.platform.txs import Tx
from snowfield.formats.platform.types import Auth

MAX_NAME_LEN = 128
MAX_GENESIS_LEN = 1024 * 1024
_NAME = re.compile(r"[A-Za-z0-9 ]*")


def subnet_for_change(env: Env, tx: Tx, subnet_id: ID, auth: Auth) -> Subnet:
    """The permissioned subnet `subnet_id`, its owner's signature on `tx` verified."""
    if subnet_id == PRIMARY_NETWORK_ID:
        raise InvalidParams("the primary network isn't a subnet")
    subnet = env.state.subnets.get(subnet_id)
    if subnet is None:
        raise InvalidParams(f"subnet {subnet_id} not found")
    verify_auth(env, tx, subnet.owner, auth)
    return subnet


def permissioned(subnet: Subnet) -> Subnet:
    if not subnet.is_permissioned:
        raise InvalidParams(f"{subnet.subnet_id} is an L1: it has no permissioned validators")
    return subnet


@executes(CreateSubnetTx)
def create_subnet(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, CreateSubnetTx)
    owner = output_owners(unsigned.owner)
    spent = spend(env, tx, unsigned.base)

    def apply() -> None:
        spent.apply(env)
        env.state.subnets[tx.id] = Subnet(tx.id, owner)

    return apply


def _check_chain_fields(tx: CreateChainTx) -> None:
    if not tx.chain_name or len(tx.chain_name) > MAX_NAME_LEN:
        raise InvalidParams("chain name must be 1 to 128 characters")
    if not _NAME.fullmatch(tx.chain_name):
        raise InvalidParams("illegal name character")
    if len(tx.genesis_data) > MAX_GENESIS_LEN:
        raise InvalidParams("genesis data too large")


@executes(CreateChainTx)
def create_chain(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, CreateChainTx)
    _check_chain_fields(unsigned)
    subnet_for_change(env, tx, unsigned.subnet_id, unsigned.subnet_auth)
    spent = spend(env, tx, unsigned.base, SpendRequest(auths=1))
    chain = Blockchain(
        tx.id,
        unsigned.chain_name,
        unsigned.subnet_id,
        unsigned.vm_id,
        unsigned.fx_ids,
        unsigned.genesis_data,
    )

    def apply() -> None:
        spent.apply(env)
        env.state.blockchains[tx.id] = chain

    return apply


@executes(TransferSubnetOwnershipTx)
def transfer_ownership(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, TransferSubnetOwnershipTx)
    owner = output_owners(unsigned.owner)
    subnet = subnet_for_change(env, tx, unsigned.subnet_id, unsigned.subnet_auth)
    spent = spend(env, tx, unsigned.base, SpendRequest(auths=1))

    def apply() -> None:
        spent.apply(env)
        env.state.subnets[subnet.subnet_id] = replace(subnet, owner=owner)

    return apply


@executes(AddSubnetValidatorTx)
def add_subnet_validator(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, AddSubnetValidatorTx)
    state, validator = env.state, unsigned.validator
    subnet = permissioned(subnet_for_change(env, tx, unsigned.subnet_id, unsigned.subnet_auth))
    if validator.weight == 0:
        raise InvalidParams("weight of this validator is too low")
    start = state.timestamp  # post-Durango the start is the chain time
    if validator.end <= start:
        raise InvalidParams("staking period is too short")
    if (subnet.subnet_id, validator.node_id) in state.stakers.validators:
        raise InvalidParams(
            f"attempted to issue duplicate subnet validation for {validator.node_id}"
        )
    primary = state.stakers.validators.get((PRIMARY_NETWORK_ID, validator.node_id))
    if primary is None or validator.end > primary.end:
        raise InvalidParams("proposed staking period is not inside dependant staking period")
    spent = spend(env, tx, unsigned.base, SpendRequest(auths=1))
    staker = Staker(
        tx.id,
        StakerKind.SUBNET_PERMISSIONED_VALIDATOR,
        validator.node_id,
        subnet.subnet_id,
        validator.weight,
        start,
        validator.end,
        public_key=primary.public_key,
    )

    def apply() -> None:
        spent.apply(env)
        state.stakers.add(staker)

    return apply


@executes(RemoveSubnetValidatorTx)
def remove_subnet_validator(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, RemoveSubnetValidatorTx)
    state = env.state
    subnet = permissioned(subnet_for_change(env, tx, unsigned.subnet_id, unsigned.subnet_auth))
    staker = state.stakers.validators.get((subnet.subnet_id, unsigned.node_id))
    if staker is None:
        raise InvalidParams(f"{unsigned.node_id} is not a validator of subnet {subnet.subnet_id}")
    spent = spend(env, tx, unsigned.base, SpendRequest(auths=1))

    def apply() -> None:
        spent.apply(env)
        state.stakers.remove(staker)

    return apply


@executes(TransformSubnetTx)
def transform_subnet(env: Env, tx: Tx) -> Effect:
    raise InvalidParams("TransformSubnetTx is not permitted post-Etna")
