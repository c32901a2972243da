"""avalanchego's JSON renderings of the avax components P and X txs share (`encoding: "json"`).

The real node marshals its Go structs with `encoding/json`, so each rendering here follows the
struct's field order and JSON tags, and where a type has its own `MarshalJSON` building a Go map
(owners, secp256k1fx and nftfx outputs, credentials), that map's keys in sorted order, as Go writes
maps. u64s are JSON numbers, ids cb58, `types.JSONByteSlice` `0x` hex, plain `[]byte` base64 and
fixed byte arrays arrays of numbers. Addresses of outputs the node initialised with its context are
`<chain alias>-<hrp>1…`; others stay bare cb58 short ids.

Public API: `JsonContext`, `FxIds` (the built-in fx ids), `owners_json`, `transfer_output_json`,
`transfer_input_json`, `credential_json`, `transferable_output_json`,
`transferable_input_json`, `base_tx_json`, `hex_bytes`, `sorted_map`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.stakeable import LockIn, LockOut
from snowfield.formats.registry import Encodable

Json = dict[str, Any]


def _fx_id(name: str) -> ID:
    """avalanchego's built-in fx ids are their names zero-padded to 32 bytes."""
    return ID(name.encode().ljust(32, b"\0"))


class FxIds:
    """The ids avalanchego gives its three fxs (shown as `fxID` in JSON)."""

    SECP256K1 = _fx_id("secp256k1fx")
    NFT = _fx_id("nftfx")
    PROPERTY = _fx_id("propertyfx")
    BY_INDEX = (SECP256K1, NFT, PROPERTY)  # the AVM's fx indices (InitialState.fxIndex)


@dataclass(frozen=True, slots=True)
class JsonContext:
    """What `InitCtx` gives a tx: the network (its HRP) and the alias of the chain serving it."""

    network_id: int
    chain_alias: str

    def address(self, short_id: ShortID) -> str:
        return format_address(self.chain_alias, hrp_for_network(self.network_id), short_id.raw)


def sorted_map(fields: Json) -> Json:
    """A Go map as `encoding/json` writes it: keys in byte order."""
    return {key: fields[key] for key in sorted(fields)}


def hex_bytes(data: bytes) -> str:
    """`formatting.HexNC` (types.JSONByteSlice, signatures, BLS keys): `0x` + lower-case hex."""
    return "0x" + data.hex()


def go_bytes(data: bytes) -> str:
    """A plain Go `[]byte` field: standard base64."""
    return base64.b64encode(data).decode()


def owners_fields(owners: OutputOwners, ctx: JsonContext | None) -> Json:
    """OutputOwners.Fields(): the map every secp256k1fx-style output's MarshalJSON starts from."""
    address = ctx.address if ctx is not None else str
    return {
        "locktime": owners.locktime,
        "threshold": owners.threshold,
        "addresses": [address(a) for a in owners.addresses],
    }


def owners_json(owners: OutputOwners, ctx: JsonContext | None) -> Json:
    return sorted_map(owners_fields(owners, ctx))


def transfer_output_json(output: TransferOutput, ctx: JsonContext | None) -> Json:
    return sorted_map({**owners_fields(output.owners, ctx), "amount": output.amt})


def input_json(auth: Input) -> Json:
    return {"signatureIndices": list(auth.indices)}


def transfer_input_json(inp: TransferInput) -> Json:
    return {"amount": inp.amt, "signatureIndices": list(inp.sig_indices)}


def credential_json(credential: Encodable) -> Json:
    """secp256k1fx.Credential's MarshalJSON (nftfx's and propertyfx's embed it)."""
    if not isinstance(credential, Credential):
        raise TypeError(f"no JSON rendering for {type(credential).__name__}")
    return {"signatures": [hex_bytes(sig) for sig in credential.signatures]}


def _out_json(output: Encodable, ctx: JsonContext | None) -> Json:
    if isinstance(output, LockOut):  # stakeable.LockOut: its embedded output under "output"
        return {"locktime": output.locktime, "output": transfer_output_json(output.output, ctx)}
    if isinstance(output, TransferOutput):
        return transfer_output_json(output, ctx)
    raise TypeError(f"no JSON rendering for {type(output).__name__}")


def _in_json(inp: Encodable) -> Json:
    if isinstance(inp, LockIn):
        return {"locktime": inp.locktime, "input": transfer_input_json(inp.input)}
    if isinstance(inp, TransferInput):
        return transfer_input_json(inp)
    raise TypeError(f"no JSON rendering for {type(inp).__name__}")


def transferable_output_json(out: TransferableOutput, fx_id: ID, ctx: JsonContext | None) -> Json:
    return {"assetID": str(out.asset_id), "fxID": str(fx_id), "output": _out_json(out.output, ctx)}


def transferable_input_json(inp: TransferableInput, fx_id: ID) -> Json:
    return {
        "txID": str(inp.utxo_id.tx_id),
        "outputIndex": inp.utxo_id.output_index,
        "assetID": str(inp.asset_id),
        "fxID": str(fx_id),
        "input": _in_json(inp.input),
    }


def base_tx_json(base: BaseTxFields, ctx: JsonContext) -> Json:
    """avax.BaseTx inline (its fields are embedded in every tx's JSON), after InitCtx: every
    input and output a secp256k1fx one, outputs' owners formatted with the chain's alias."""
    return {
        "networkID": base.network_id,
        "blockchainID": str(base.blockchain_id),
        "outputs": [transferable_output_json(o, FxIds.SECP256K1, ctx) for o in base.outputs],
        "inputs": [transferable_input_json(i, FxIds.SECP256K1) for i in base.inputs],
        "memo": hex_bytes(base.memo),
    }
