"""Tx complexity for Etna fees: the facts of avalanchego `platformvm/txs/fee/complexity.go`.

Public API: `tx_complexity(unsigned)` → (bandwidth, reads, writes, compute); InvalidParams for tx
types that pay no dynamic fee (Apricot staking txs, AdvanceTimeTx, RewardValidatorTx,
TransformSubnetTx). `COMPLEXITIES` maps each tx type to its function (one registration per type).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from snowfield.chains.platform.gas import Dimensions, add
from snowfield.errors import InvalidParams
from snowfield.formats.platform import l1_txs as l1
from snowfield.formats.platform import staking_txs as st
from snowfield.formats.platform import subnet_txs as sn
from snowfield.formats.platform import transfer_txs as tr
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import (
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.signer import EmptySigner, ProofOfPossession
from snowfield.formats.platform.stakeable import LockIn, LockOut
from snowfield.formats.platform.types import Auth, Owner, Signer, UnsignedTx
from snowfield.formats.warp.message import Message

_LONG, _INT, _SHORT, _ID, _NODE_ID, _ADDR = 8, 4, 2, 32, 20, 20
_SIG_BANDWIDTH = _INT + 65
_SIG_COMPUTE = 200
_POP_BANDWIDTH = 48 + 96
_POP_COMPUTE = 50 + 1_000
_VALIDATOR_BANDWIDTH = _NODE_ID + 3 * _LONG
_OWNERS_BANDWIDTH = _LONG + _INT + _INT
_BASE_BANDWIDTH = (
    _SHORT + 6 * _INT + _ID
)  # version, type, network, chain, #outs, #ins, memo, #creds


def _output(out: TransferableOutput) -> Dimensions:
    inner, bandwidth = out.output, _ID + _INT + _LONG + _OWNERS_BANDWIDTH
    if isinstance(inner, LockOut):
        inner, bandwidth = inner.output, bandwidth + _LONG + _INT
    if not isinstance(inner, TransferOutput):
        raise InvalidParams("unsupported output type")
    return (bandwidth + _ADDR * len(inner.owners.addresses), 0, 1, 0)


def _input(inp: TransferableInput) -> Dimensions:
    inner, bandwidth = inp.input, 2 * _ID + 3 * _INT + _LONG + 2 * _INT
    if isinstance(inner, LockIn):
        inner, bandwidth = inner.input, bandwidth + _LONG + _INT
    if not isinstance(inner, TransferInput):
        raise InvalidParams("unsupported input type")
    signatures = len(inner.sig_indices)
    return (bandwidth + _SIG_BANDWIDTH * signatures, 1, 1, _SIG_COMPUTE * signatures)


def outputs(outs: Sequence[TransferableOutput]) -> Dimensions:
    return add(*(_output(out) for out in outs))


def inputs(ins: Sequence[TransferableInput]) -> Dimensions:
    return add(*(_input(inp) for inp in ins))


def owner(value: Owner) -> Dimensions:
    if not isinstance(value, OutputOwners):
        raise InvalidParams("unsupported owner type")
    return (_OWNERS_BANDWIDTH + _ADDR * len(value.addresses), 0, 0, 0)


def auth(value: Auth) -> Dimensions:
    if not isinstance(value, Input):
        raise InvalidParams("unsupported auth type")
    signatures = len(value.indices)
    return (2 * _INT + _SIG_BANDWIDTH * signatures, 0, 0, _SIG_COMPUTE * signatures)


def signer(value: Signer) -> Dimensions:
    if isinstance(value, EmptySigner):
        return (0, 0, 0, 0)
    if isinstance(value, ProofOfPossession):
        return (_POP_BANDWIDTH, 0, 0, _POP_COMPUTE)
    raise InvalidParams("unsupported signer type")


def warp(message: bytes) -> Dimensions:
    signers = len(Message.decode(message).signature.signer_indices())
    return (len(message), 3 + 20, 0, 5 * signers + 1_000)


def base(fields: BaseTxFields) -> Dimensions:
    return add(outputs(fields.outputs), inputs(fields.inputs), (len(fields.memo), 0, 0, 0))


def _l1_validator(validator: l1.L1Validator) -> Dimensions:
    addresses = len(validator.remaining_balance_owner.addresses) + len(
        validator.deactivation_owner.addresses
    )
    bandwidth = _INT + 2 * _LONG + 4 * _INT + len(validator.node_id) + _ADDR * addresses
    return add((bandwidth, 0, 4, 0), signer(validator.signer))


def _intrinsic(bandwidth: int, reads: int = 0, writes: int = 0, compute: int = 0) -> Dimensions:
    return (_BASE_BANDWIDTH + bandwidth, reads, writes, compute)


def _base_tx(tx: tr.BaseTx) -> Dimensions:
    return add(_intrinsic(0), base(tx.base))


def _create_subnet(tx: sn.CreateSubnetTx) -> Dimensions:
    return add(_intrinsic(_INT, writes=1), base(tx.base), owner(tx.owner))


def _create_chain(tx: sn.CreateChainTx) -> Dimensions:
    dynamic = _ID * len(tx.fx_ids) + len(tx.chain_name.encode()) + len(tx.genesis_data)
    intrinsic = _intrinsic(_ID + _SHORT + _ID + 4 * _INT, reads=3, writes=1)
    return add(intrinsic, (dynamic, 0, 0, 0), base(tx.base), auth(tx.subnet_auth))


def _import(tx: tr.ImportTx) -> Dimensions:
    return add(_intrinsic(_ID + _INT), base(tx.base), inputs(tx.imported_inputs))


def _export(tx: tr.ExportTx) -> Dimensions:
    return add(_intrinsic(_ID + _INT), base(tx.base), outputs(tx.exported_outputs))


def _add_subnet_validator(tx: st.AddSubnetValidatorTx) -> Dimensions:
    intrinsic = _intrinsic(_VALIDATOR_BANDWIDTH + _ID + 2 * _INT, reads=3, writes=3)
    return add(intrinsic, base(tx.base), auth(tx.subnet_auth))


def _remove_subnet_validator(tx: st.RemoveSubnetValidatorTx) -> Dimensions:
    intrinsic = _intrinsic(_NODE_ID + _ID + 2 * _INT, reads=1, writes=3)
    return add(intrinsic, base(tx.base), auth(tx.subnet_auth))


def _add_validator(tx: st.AddPermissionlessValidatorTx) -> Dimensions:
    intrinsic = _intrinsic(_VALIDATOR_BANDWIDTH + _ID + 5 * _INT, reads=1, writes=3)
    owners = add(owner(tx.validator_rewards_owner), owner(tx.delegator_rewards_owner))
    return add(intrinsic, base(tx.base), signer(tx.signer), outputs(tx.stake), owners)


def _add_delegator(tx: st.AddPermissionlessDelegatorTx) -> Dimensions:
    intrinsic = _intrinsic(_VALIDATOR_BANDWIDTH + _ID + 2 * _INT, reads=1, writes=2)
    return add(intrinsic, base(tx.base), owner(tx.delegation_rewards_owner), outputs(tx.stake))


def _transfer_ownership(tx: sn.TransferSubnetOwnershipTx) -> Dimensions:
    intrinsic = _intrinsic(_ID + 3 * _INT, reads=1, writes=1)
    return add(intrinsic, base(tx.base), auth(tx.subnet_auth), owner(tx.owner))


def _convert(tx: l1.ConvertSubnetToL1Tx) -> Dimensions:
    intrinsic = _intrinsic(2 * _ID + 4 * _INT, reads=3, writes=2)
    validators = add(*(_l1_validator(v) for v in tx.validators))
    address = (len(tx.address), 0, 0, 0)
    return add(intrinsic, base(tx.base), validators, auth(tx.subnet_auth), address)


def _register(tx: l1.RegisterL1ValidatorTx) -> Dimensions:
    intrinsic = _intrinsic(_LONG + 96 + _INT, reads=5, writes=6, compute=_POP_COMPUTE)
    return add(intrinsic, base(tx.base), warp(tx.message))


def _set_weight(tx: l1.SetL1ValidatorWeightTx) -> Dimensions:
    return add(_intrinsic(_INT, reads=3, writes=5), base(tx.base), warp(tx.message))


def _increase_balance(tx: l1.IncreaseL1ValidatorBalanceTx) -> Dimensions:
    return add(_intrinsic(_ID + _LONG, reads=1, writes=5), base(tx.base))


def _disable(tx: l1.DisableL1ValidatorTx) -> Dimensions:
    intrinsic = _intrinsic(_ID + 2 * _INT, reads=1, writes=6)
    return add(intrinsic, base(tx.base), auth(tx.disable_auth))


COMPLEXITIES: dict[type[UnsignedTx], Callable[[Any], Dimensions]] = {
    tr.BaseTx: _base_tx,
    tr.ImportTx: _import,
    tr.ExportTx: _export,
    sn.CreateSubnetTx: _create_subnet,
    sn.CreateChainTx: _create_chain,
    sn.TransferSubnetOwnershipTx: _transfer_ownership,
    st.AddSubnetValidatorTx: _add_subnet_validator,
    st.RemoveSubnetValidatorTx: _remove_subnet_validator,
    st.AddPermissionlessValidatorTx: _add_validator,
    st.AddPermissionlessDelegatorTx: _add_delegator,
    l1.ConvertSubnetToL1Tx: _convert,
    l1.RegisterL1ValidatorTx: _register,
    l1.SetL1ValidatorWeightTx: _set_weight,
    l1.IncreaseL1ValidatorBalanceTx: _increase_balance,
    l1.DisableL1ValidatorTx: _disable,
}


def tx_complexity(unsigned: UnsignedTx) -> Dimensions:
    function = COMPLEXITIES.get(type(unsigned))
    if function is None:
        raise InvalidParams("tx type does not support dynamic fees")
    return function(unsigned)
