"""avm.getTx / getBlock with `encoding: "json"`: X-Chain txs and blocks as avalanchego writes
them after its `txInit` visitor (InitCtx, then the `fxID` of every input, output, initial state,
operation and credential from the fx its type belongs to; formats.avax_json has the conventions).

Public API: `tx_json(tx, ctx)`, `block_json(block, ctx)`, `state_json(output, ctx)`.
"""

from __future__ import annotations

from snowfield.formats.exchange import fxs
from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.exchange.txs import (
    BaseTx,
    CreateAssetTx,
    ExportTx,
    ImportTx,
    InitialState,
    Operation,
    OperationTx,
    Tx,
)
from snowfield.formats.exchange.types import AvmUnsignedTx, FxOperation
from snowfield.formats.ids import EMPTY_ID, ID
from snowfield.formats.platform.avax_json import (
    FxIds,
    Json,
    JsonContext,
    base_tx_json,
    credential_json,
    hex_bytes,
    input_json,
    owners_fields,
    owners_json,
    sorted_map,
    transfer_output_json,
    transferable_input_json,
    transferable_output_json,
)
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.registry import Encodable

_NFT_TYPES = (
    fxs.NftMintOutput,
    fxs.NftTransferOutput,
    fxs.NftMintOperation,
    fxs.NftTransferOperation,
    fxs.NftCredential,
)
_PROPERTY_TYPES = (
    fxs.PropertyMintOutput,
    fxs.PropertyOwnedOutput,
    fxs.PropertyMintOperation,
    fxs.PropertyBurnOperation,
    fxs.PropertyCredential,
)


def fx_of(value: Encodable) -> ID:
    """The fx a codec type belongs to (avalanchego's typeToFxIndex)."""
    if isinstance(value, _NFT_TYPES):
        return FxIds.NFT
    if isinstance(value, _PROPERTY_TYPES):
        return FxIds.PROPERTY
    return FxIds.SECP256K1


def _nft_transfer_output(output: fxs.NftTransferOutput, ctx: JsonContext) -> Json:
    fields = owners_fields(output.owners, ctx)
    return sorted_map({**fields, "groupID": output.group_id, "payload": hex_bytes(output.payload)})


def state_json(output: Encodable, ctx: JsonContext) -> Json:
    """An fx output (a UTXO's or an initial state's), its owners formatted with `ctx`."""
    match output:
        case TransferOutput():
            return transfer_output_json(output, ctx)
        case fxs.NftMintOutput(group_id=group, owners=owners):
            return sorted_map({**owners_fields(owners, ctx), "groupID": group})
        case fxs.NftTransferOutput():
            return _nft_transfer_output(output, ctx)
        case fxs.OwnedState(owners=owners):  # secp256k1fx mint, propertyfx mint and owned
            return owners_json(owners, ctx)
    raise TypeError(f"no JSON rendering for {type(output).__name__}")


def _operation_body(op: FxOperation, ctx: JsonContext) -> Json:
    match op:
        case fxs.MintOperation(mint_input=mint_input, mint_output=mint, transfer_output=out):
            return {
                "mintInput": input_json(mint_input),
                "mintOutput": owners_json(mint.owners, ctx),
                "transferOutput": transfer_output_json(out, ctx),
            }
        case fxs.NftMintOperation(mint_input=mint_input, group_id=group, payload=payload):
            return {
                "mintInput": input_json(mint_input),
                "groupID": group,
                "payload": hex_bytes(payload),
                "outputs": [owners_json(o, ctx) for o in op.owners],
            }
        case fxs.NftTransferOperation(input=spend, output=out):
            return {"input": input_json(spend), "output": _nft_transfer_output(out, ctx)}
        case fxs.PropertyMintOperation(mint_input=mint_input, mint_output=mint, owned_output=own):
            return {
                "mintInput": input_json(mint_input),
                "mintOutput": owners_json(mint.owners, ctx),
                "ownedOutput": owners_json(own.owners, ctx),
            }
        case fxs.PropertyBurnOperation(input=spend):
            return input_json(spend)  # the embedded secp256k1fx.Input, inline
    raise TypeError(f"no JSON rendering for {type(op).__name__}")


def _operation(operation: Operation, ctx: JsonContext) -> Json:
    return {
        "assetID": str(operation.asset_id),
        "inputIDs": [
            {"txID": str(u.tx_id), "outputIndex": u.output_index} for u in operation.utxo_ids
        ],
        "fxID": str(fx_of(operation.op)),
        "operation": _operation_body(operation.op, ctx),
    }


def _initial_state(state: InitialState, ctx: JsonContext) -> Json:
    fx_id = FxIds.BY_INDEX[state.fx_index] if state.fx_index < len(FxIds.BY_INDEX) else EMPTY_ID
    return {
        "fxIndex": state.fx_index,
        "fxID": str(fx_id),
        "outputs": [state_json(o, ctx) for o in state.outputs],
    }


def unsigned_tx_json(unsigned: AvmUnsignedTx, ctx: JsonContext) -> Json:
    base = base_tx_json(unsigned.base, ctx)
    match unsigned:
        case BaseTx():
            return base
        case CreateAssetTx(name=name, symbol=symbol, denomination=denomination, states=states):
            return {
                **base,
                "name": name,
                "symbol": symbol,
                "denomination": denomination,
                "initialStates": [_initial_state(s, ctx) for s in states],
            }
        case OperationTx(operations=operations):
            return {**base, "operations": [_operation(o, ctx) for o in operations]}
        case ImportTx(source_chain=source, imported_inputs=imported):
            return {
                **base,
                "sourceChain": str(source),
                "importedInputs": [transferable_input_json(i, fx_of(i.input)) for i in imported],
            }
        case ExportTx(destination_chain=destination, exported_outputs=exported):
            return {
                **base,
                "destinationChain": str(destination),
                "exportedOutputs": [
                    transferable_output_json(o, fx_of(o.output), ctx) for o in exported
                ],
            }
    raise TypeError(f"no JSON rendering for {type(unsigned).__name__}")


def tx_json(tx: Tx, ctx: JsonContext) -> Json:
    """txs.Tx: `{unsignedTx, credentials: [{fxID, credential}], id}`."""
    credentials = [
        {"fxID": str(fx_of(c)), "credential": credential_json(c)} for c in tx.credentials
    ]
    return {
        "unsignedTx": unsigned_tx_json(tx.unsigned, ctx),
        "credentials": credentials,
        "id": str(tx.id),
    }


def block_json(block: StandardBlock, ctx: JsonContext) -> Json:
    """block.StandardBlock: `{parentID, height, time, merkleRoot, txs, id}`."""
    return {
        "parentID": str(block.parent_id),
        "height": block.height,
        "time": block.time,
        "merkleRoot": str(block.merkle_root),
        "txs": [tx_json(t, ctx) for t in block.txs],
        "id": str(block.id),
    }
