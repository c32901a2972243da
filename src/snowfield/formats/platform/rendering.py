"""platform.getTx / getBlock with `encoding: "json"`: P-Chain txs and blocks as avalanchego's
`encoding/json` writes them after `InitCtx(ctx)` (see formats.avax_json for the conventions).

Embedded Go structs without a JSON name are inlined (BaseTx's fields open every tx; a Banff block
carries its Apricot block's fields after its own), named ones nest (`validator`). A tx decoded
from bytes has non-nil slices, so empty lists are `[]`, never `null`.

Public API: `unsigned_tx_json(unsigned, ctx)`, `tx_json(tx, ctx)`, `block_json(block, ctx)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from snowfield.formats.ids import ID
from snowfield.formats.platform import blocks as pb
from snowfield.formats.platform import l1_txs, staking_txs, subnet_txs, transfer_txs
from snowfield.formats.platform.avax_json import (
    FxIds,
    Json,
    JsonContext,
    base_tx_json,
    credential_json,
    go_bytes,
    hex_bytes,
    input_json,
    owners_json,
    transferable_input_json,
    transferable_output_json,
)
from snowfield.formats.platform.components import TransferableOutput
from snowfield.formats.platform.secp256k1fx import Input, OutputOwners
from snowfield.formats.platform.signer import EmptySigner, ProofOfPossession
from snowfield.formats.platform.txs import Tx
from snowfield.formats.platform.types import Block, UnsignedTx
from snowfield.formats.registry import Encodable


def _owner(owner: Encodable, ctx: JsonContext) -> Json:
    if not isinstance(owner, OutputOwners):
        raise TypeError(f"no JSON rendering for {type(owner).__name__}")
    return owners_json(owner, ctx)


def _auth(auth: Encodable) -> Json:
    if not isinstance(auth, Input):
        raise TypeError(f"no JSON rendering for {type(auth).__name__}")
    return input_json(auth)


def _signer(signer: Encodable) -> Json:
    if isinstance(signer, ProofOfPossession):
        return {
            "publicKey": hex_bytes(signer.public_key),
            "proofOfPossession": hex_bytes(signer.proof),
        }
    if isinstance(signer, EmptySigner):
        return {}
    raise TypeError(f"no JSON rendering for {type(signer).__name__}")


def _stake(outputs: tuple[TransferableOutput, ...], ctx: JsonContext) -> list[Json]:
    return [transferable_output_json(o, FxIds.SECP256K1, ctx) for o in outputs]


def _validator(v: staking_txs.Validator) -> Json:
    return {"nodeID": str(v.node_id), "start": v.start, "end": v.end, "weight": v.weight}


def _pchain_owner(owner: l1_txs.PChainOwner) -> Json:
    # message.PChainOwner has no context: its addresses are bare short ids.
    return {"threshold": owner.threshold, "addresses": [str(a) for a in owner.addresses]}


def _base(tx: transfer_txs.BaseTx, ctx: JsonContext) -> Json:
    return base_tx_json(tx.base, ctx)


def _import(tx: transfer_txs.ImportTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "sourceChain": str(tx.source_chain),
        "importedInputs": [transferable_input_json(i, FxIds.SECP256K1) for i in tx.imported_inputs],
    }


def _export(tx: transfer_txs.ExportTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "destinationChain": str(tx.destination_chain),
        "exportedOutputs": _stake(tx.exported_outputs, ctx),
    }


def _advance_time(tx: transfer_txs.AdvanceTimeTx, _: JsonContext) -> Json:
    return {"time": tx.time}


def _reward_validator(tx: transfer_txs.RewardValidatorTx, _: JsonContext) -> Json:
    return {"txID": str(tx.tx_id)}


def _add_validator(tx: staking_txs.AddValidatorTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "validator": _validator(tx.validator),
        "stake": _stake(tx.stake, ctx),
        "rewardsOwner": _owner(tx.rewards_owner, ctx),
        "shares": tx.shares,
    }


def _add_subnet_validator(tx: staking_txs.AddSubnetValidatorTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "validator": {**_validator(tx.validator), "subnetID": str(tx.subnet_id)},
        "subnetAuthorization": _auth(tx.subnet_auth),
    }


def _add_delegator(tx: staking_txs.AddDelegatorTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "validator": _validator(tx.validator),
        "stake": _stake(tx.stake, ctx),
        "rewardsOwner": _owner(tx.rewards_owner, ctx),
    }


def _remove_subnet_validator(tx: staking_txs.RemoveSubnetValidatorTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "nodeID": str(tx.node_id),
        "subnetID": str(tx.subnet_id),
        "subnetAuthorization": _auth(tx.subnet_auth),
    }


def _add_permissionless_validator(
    tx: staking_txs.AddPermissionlessValidatorTx, ctx: JsonContext
) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "validator": _validator(tx.validator),
        "subnetID": str(tx.subnet_id),
        "signer": _signer(tx.signer),
        "stake": _stake(tx.stake, ctx),
        "validationRewardsOwner": _owner(tx.validator_rewards_owner, ctx),
        "delegationRewardsOwner": _owner(tx.delegator_rewards_owner, ctx),
        "shares": tx.delegation_shares,
    }


def _add_permissionless_delegator(
    tx: staking_txs.AddPermissionlessDelegatorTx, ctx: JsonContext
) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "validator": _validator(tx.validator),
        "subnetID": str(tx.subnet_id),
        "stake": _stake(tx.stake, ctx),
        "rewardsOwner": _owner(tx.delegation_rewards_owner, ctx),
    }


def _create_subnet(tx: subnet_txs.CreateSubnetTx, ctx: JsonContext) -> Json:
    return {**base_tx_json(tx.base, ctx), "owner": _owner(tx.owner, ctx)}


def _create_chain(tx: subnet_txs.CreateChainTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "subnetID": str(tx.subnet_id),
        "chainName": tx.chain_name,
        "vmID": str(tx.vm_id),
        "fxIDs": [str(fx) for fx in tx.fx_ids],
        "genesisData": go_bytes(tx.genesis_data),  # a plain []byte: base64, as Go writes it
        "subnetAuthorization": _auth(tx.subnet_auth),
    }


def _transfer_subnet_ownership(tx: subnet_txs.TransferSubnetOwnershipTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "subnetID": str(tx.subnet_id),
        "subnetAuthorization": _auth(tx.subnet_auth),
        "newOwner": _owner(tx.owner, ctx),
    }


def _transform_subnet(tx: subnet_txs.TransformSubnetTx, ctx: JsonContext) -> Json:
    rules = tx.rules
    return {
        **base_tx_json(tx.base, ctx),
        "subnetID": str(tx.subnet_id),
        "assetID": str(tx.asset_id),
        "initialSupply": rules.initial_supply,
        "maximumSupply": rules.maximum_supply,
        "minConsumptionRate": rules.min_consumption_rate,
        "maxConsumptionRate": rules.max_consumption_rate,
        "minValidatorStake": rules.min_validator_stake,
        "maxValidatorStake": rules.max_validator_stake,
        "minStakeDuration": rules.min_stake_duration,
        "maxStakeDuration": rules.max_stake_duration,
        "minDelegationFee": rules.min_delegation_fee,
        "minDelegatorStake": rules.min_delegator_stake,
        "maxValidatorWeightFactor": rules.max_validator_weight_factor,
        "uptimeRequirement": rules.uptime_requirement,
        "subnetAuthorization": _auth(tx.subnet_auth),
    }


def _l1_validator(v: l1_txs.L1Validator) -> Json:
    return {
        "nodeID": hex_bytes(v.node_id),
        "weight": v.weight,
        "balance": v.balance,
        "signer": _signer(v.signer),
        "remainingBalanceOwner": _pchain_owner(v.remaining_balance_owner),
        "deactivationOwner": _pchain_owner(v.deactivation_owner),
    }


def _convert_subnet_to_l1(tx: l1_txs.ConvertSubnetToL1Tx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "subnetID": str(tx.subnet_id),
        "chainID": str(tx.chain_id),
        "address": hex_bytes(tx.address),
        "validators": [_l1_validator(v) for v in tx.validators],
        "subnetAuthorization": _auth(tx.subnet_auth),
    }


def _register_l1_validator(tx: l1_txs.RegisterL1ValidatorTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "balance": tx.balance,
        # A Go [96]byte array: encoding/json writes it as an array of numbers.
        "proofOfPossession": list(tx.proof_of_possession),
        "message": hex_bytes(tx.message),
    }


def _set_l1_validator_weight(tx: l1_txs.SetL1ValidatorWeightTx, ctx: JsonContext) -> Json:
    return {**base_tx_json(tx.base, ctx), "message": hex_bytes(tx.message)}


def _increase_l1_validator_balance(
    tx: l1_txs.IncreaseL1ValidatorBalanceTx, ctx: JsonContext
) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "validationID": str(tx.validation_id),
        "balance": tx.balance,
    }


def _disable_l1_validator(tx: l1_txs.DisableL1ValidatorTx, ctx: JsonContext) -> Json:
    return {
        **base_tx_json(tx.base, ctx),
        "validationID": str(tx.validation_id),
        "disableAuthorization": _auth(tx.disable_auth),
    }


_RENDERERS: dict[type[Any], Callable[[Any, JsonContext], Json]] = {
    transfer_txs.BaseTx: _base,
    transfer_txs.ImportTx: _import,
    transfer_txs.ExportTx: _export,
    transfer_txs.AdvanceTimeTx: _advance_time,
    transfer_txs.RewardValidatorTx: _reward_validator,
    staking_txs.AddValidatorTx: _add_validator,
    staking_txs.AddSubnetValidatorTx: _add_subnet_validator,
    staking_txs.AddDelegatorTx: _add_delegator,
    staking_txs.RemoveSubnetValidatorTx: _remove_subnet_validator,
    staking_txs.AddPermissionlessValidatorTx: _add_permissionless_validator,
    staking_txs.AddPermissionlessDelegatorTx: _add_permissionless_delegator,
    subnet_txs.CreateSubnetTx: _create_subnet,
    subnet_txs.CreateChainTx: _create_chain,
    subnet_txs.TransferSubnetOwnershipTx: _transfer_subnet_ownership,
    subnet_txs.TransformSubnetTx: _transform_subnet,
    l1_txs.ConvertSubnetToL1Tx: _convert_subnet_to_l1,
    l1_txs.RegisterL1ValidatorTx: _register_l1_validator,
    l1_txs.SetL1ValidatorWeightTx: _set_l1_validator_weight,
    l1_txs.IncreaseL1ValidatorBalanceTx: _increase_l1_validator_balance,
    l1_txs.DisableL1ValidatorTx: _disable_l1_validator,
}


def unsigned_tx_json(unsigned: UnsignedTx, ctx: JsonContext) -> Json:
    """The unsigned tx after `InitCtx(ctx)`, as `json.Marshal` writes it."""
    render = _RENDERERS.get(type(unsigned))
    if render is None:
        raise TypeError(f"no JSON rendering for {type(unsigned).__name__}")
    return render(unsigned, ctx)


def tx_json(tx: Tx, ctx: JsonContext) -> Json:
    """txs.Tx: `{unsignedTx, credentials, id}`."""
    return {
        "unsignedTx": unsigned_tx_json(tx.unsigned, ctx),
        "credentials": [credential_json(c) for c in tx.credentials],
        "id": str(tx.id),
    }


def _common(block: Block, parent_id: ID, height: int) -> Json:
    return {"parentID": str(parent_id), "height": height, "id": str(pb.block_id(block))}


def _txs(txs: tuple[Tx, ...], ctx: JsonContext) -> list[Json]:
    return [tx_json(t, ctx) for t in txs]


def block_json(block: Block, ctx: JsonContext) -> Json:
    """A P-Chain block: a Banff block's own fields, then its Apricot block's (CommonBlock's
    `parentID`, `height`, `id`, then `tx` or `txs`)."""
    match block:
        case pb.BanffProposalBlock(time=time, decision_txs=decisions, parent_id=p, height=h):
            head = {"time": time, "txs": _txs(decisions, ctx), **_common(block, p, h)}
            return {**head, "tx": tx_json(block.tx, ctx)}
        case pb.BanffStandardBlock(time=time, parent_id=p, height=h, txs=txs):
            return {"time": time, **_common(block, p, h), "txs": _txs(txs, ctx)}
        case pb.BanffOptionBlock(time=time, parent_id=p, height=h):
            return {"time": time, **_common(block, p, h)}
        case pb.ApricotSingleTxBlock(parent_id=p, height=h, tx=tx):
            return {**_common(block, p, h), "tx": tx_json(tx, ctx)}
        case pb.ApricotStandardBlock(parent_id=p, height=h, txs=txs):
            return {**_common(block, p, h), "txs": _txs(txs, ctx)}
        case pb.ApricotOptionBlock(parent_id=p, height=h):
            return _common(block, p, h)
    raise TypeError(f"no JSON rendering for {type(block).__name__}")
