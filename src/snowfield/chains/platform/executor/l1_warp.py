"""The L1 txs that carry a Warp message from the L1's validator manager (ACP-77):
RegisterL1ValidatorTx and SetL1ValidatorWeightTx, accepted once the message verifies against
the L1's validators (quorum 67%) and comes from the manager the conversion named.

A port of avalanchego's platformvm rules (txs/executor: registerL1Validator, setL1ValidatorWeight)
with their error texts; expiry within 24 hours, a validation id used once, the node not already
validating, the message's nonce not stale, and never removing the last validator.
"""

from __future__ import annotations

from dataclasses import replace

from snowfield.chains.platform.executor.base import (
    Effect,
    Env,
    SpendRequest,
    executes,
    spend,
)
from snowfield.chains.platform.executor.l1 import owners, set_l1_validator
from snowfield.chains.platform.records import L1Validator, Subnet
from snowfield.crypto import bls
from snowfield.crypto.warp import ValidatorEntry, canonical_validator_set, verify_signature
from snowfield.errors import InvalidParams
from snowfield.formats.ids import NodeID
from snowfield.formats.platform.components import UTXO, UTXOID
from snowfield.formats.platform.l1_txs import RegisterL1ValidatorTx, SetL1ValidatorWeightTx
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.platform.txs import Tx
from snowfield.formats.warp.message import Message
from snowfield.formats.warp.payload import AddressedCall, decode_payload
from snowfield.formats.warp.platform_messages import (
    L1Message,
    L1ValidatorWeight,
    RegisterL1Validator,
    decode_message,
)

QUORUM_NUMERATOR, QUORUM_DENOMINATOR = 67, 100
EXPIRY_WINDOW = 24 * 60 * 60  # RegisterL1ValidatorTxExpiryWindow


def _manager_message(env: Env, data: bytes) -> tuple[Subnet, L1Message]:
    """The L1 message a tx carries, once its signature and source check out."""
    state = env.state
    try:
        message = Message.decode(data)
        payload = decode_payload(message.unsigned.payload)
    except InvalidParams as exc:
        raise InvalidParams(f"failed to parse warp message: {exc.message}") from None
    if not isinstance(payload, AddressedCall):
        raise InvalidParams("expected an addressed call payload")
    source = message.unsigned.source_chain_id
    chain = state.blockchains.get(source)
    if chain is None:
        raise InvalidParams(f"unknown source chain {source}")
    subnet = state.subnets.get(chain.subnet_id)
    if subnet is None or subnet.manager_chain_id != source:
        raise InvalidParams(f"source chain {source} is not the manager of an L1")
    if payload.source_address != subnet.manager_address:
        raise InvalidParams("invalid warp message source address")
    entries = [
        ValidatorEntry(NodeID(node), key, weight)
        for node, (weight, key) in state.validator_sets().get(subnet.subnet_id, {}).items()
    ]
    try:
        verify_signature(
            message,
            state.network_id,
            canonical_validator_set(entries),
            QUORUM_NUMERATOR,
            QUORUM_DENOMINATOR,
        )
    except InvalidParams as exc:
        raise InvalidParams(f"failed to verify warp message: {exc.message}") from None
    try:
        return subnet, decode_message(payload.payload)
    except InvalidParams as exc:
        raise InvalidParams(f"failed to parse L1 message: {exc.message}") from None


@executes(RegisterL1ValidatorTx)
def register(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, RegisterL1ValidatorTx)
    state = env.state
    subnet, inner = _manager_message(env, unsigned.message)
    if not isinstance(inner, RegisterL1Validator):
        raise InvalidParams("expected a RegisterL1Validator message")
    if inner.subnet_id != subnet.subnet_id:
        raise InvalidParams(f"message is for subnet {inner.subnet_id}, not {subnet.subnet_id}")
    if inner.expiry <= state.timestamp:
        raise InvalidParams(f"warp message expired at {inner.expiry}")
    if inner.expiry > state.timestamp + EXPIRY_WINDOW:
        raise InvalidParams("warp message expiry is too far in the future")
    if inner.weight == 0:
        raise InvalidParams("weight must be non-zero")
    validation_id = inner.validation_id
    if validation_id in state.l1_validators or validation_id in state.used_validation_ids:
        raise InvalidParams(f"validation {validation_id} already registered")
    if any(
        v.subnet_id == subnet.subnet_id and v.node_id == inner.node_id and v.weight
        for v in state.l1_validators.values()
    ):
        raise InvalidParams("node is already a validator of the subnet")
    key = bls.PublicKey.from_bytes(inner.bls_public_key)
    if not bls.verify_proof_of_possession(
        key, bls.Signature.from_bytes(unsigned.proof_of_possession)
    ):
        raise InvalidParams("invalid proof of possession")
    spent = spend(env, tx, unsigned.base, SpendRequest(burn=unsigned.balance))

    def apply() -> None:
        spent.apply(env)
        record = L1Validator(
            validation_id,
            subnet.subnet_id,
            inner.node_id,
            inner.bls_public_key,
            inner.remaining_balance_owner,
            inner.disable_owner,
            state.timestamp,
            inner.weight,
            unsigned.balance,
            height=state.height,
        )
        state.used_validation_ids.add(validation_id)
        set_l1_validator(state, record)

    return apply


@executes(SetL1ValidatorWeightTx)
def set_weight(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, SetL1ValidatorWeightTx)
    state = env.state
    subnet, inner = _manager_message(env, unsigned.message)
    if not isinstance(inner, L1ValidatorWeight):
        raise InvalidParams("expected an L1ValidatorWeight message")
    record = state.l1_validators.get(inner.validation_id)
    if record is None or record.subnet_id != subnet.subnet_id or not record.weight:
        raise InvalidParams(f"L1 validator {inner.validation_id} not found")
    if inner.nonce < record.min_nonce:
        raise InvalidParams(
            f"warp message contains stale nonce: {inner.nonce} < {record.min_nonce}"
        )
    others = [
        v
        for v in state.l1_validators.values()
        if v.subnet_id == subnet.subnet_id and v.weight and v.validation_id != record.validation_id
    ]
    if inner.weight == 0 and not others:
        raise InvalidParams("attempted to remove the last validator of the L1")
    spent = spend(env, tx, unsigned.base, SpendRequest())
    index = len(unsigned.base.outputs)

    def apply() -> None:
        spent.apply(env)
        current = state.l1_validators[record.validation_id]
        if inner.weight:
            updated = replace(current, weight=inner.weight, min_nonce=inner.nonce + 1)
            set_l1_validator(state, updated)
            return
        if current.balance:  # removed: what is left of its balance goes back to its owner
            refund = TransferOutput(current.balance, owners(current.remaining_balance_owner))
            state.utxos.add(UTXO(UTXOID(tx.id, index), state.avax_asset_id, refund))
        set_l1_validator(state, replace(current, weight=0, balance=0, min_nonce=inner.nonce + 1))

    return apply
