"""The one parser of geth's TransactionArgs (eth_call, eth_estimateGas and every method taking a
transaction object), with geth's texts for each malformed field."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snowfield.chains.evm.execution.call import AccessTuple, Authorization, CallArgs
from snowfield.errors import InvalidParams
from snowfield.node.vms.evm import params as p

BLOB_SIZE = 131_072
KZG_SIZE = 48
KNOWN_TX_TYPES = (0, 1, 2, 3, 4)


@dataclass(frozen=True, slots=True)
class Field:
    """One JSON member of a struct: its decoder and the Go type geth names in errors."""

    name: str
    go_type: str
    parse: Callable[[Any], Any]


def _non_string(parse: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """geth's hex types reject any JSON value but a string as "non-string"."""

    def checked(value: Any) -> Any:
        if not isinstance(value, str):
            raise InvalidParams("non-string")
        return parse(value)

    return checked


def _fixed_bytes(size: int, go_type: str) -> Callable[[Any], bytes]:
    def parse(value: Any) -> bytes:
        raw = p.data(value)
        if len(raw) != size:
            raise InvalidParams(
                f"hex string has length {len(raw) * 2}, want {size * 2} for {go_type}"
            )
        return raw

    return _non_string(parse)


ADDRESS = _non_string(p.address)
HASH = _non_string(p.hash32)
UINT64 = _non_string(p.uint64)
BIG = _non_string(p.quantity)
BYTES = _non_string(p.data)


def decode_struct(
    value: Any, struct: str, fields: tuple[Field, ...], path: str = ""
) -> dict[str, Any]:
    """Decodes the known members of a JSON object (others are ignored, as Go's decoder does);
    a null member counts as absent."""
    if not isinstance(value, dict):
        raise InvalidParams(
            f"json: cannot unmarshal {p.json_kind(value)} into Go value of type {struct}"
        )
    out: dict[str, Any] = {}
    for field in fields:
        raw = value.get(field.name)
        if raw is None:
            continue
        try:
            out[field.name] = field.parse(raw)
        except InvalidParams as exc:
            if exc.message.startswith("json: "):
                raise
            where = f"{struct.split('.')[-1]}.{path}{field.name}"
            raise InvalidParams(
                f"json: cannot unmarshal {exc.message} into Go struct field {where} "
                f"of type {field.go_type}"
            ) from None
    return out


def _list_of(parse: Callable[[Any], Any]) -> Callable[[Any], tuple[Any, ...]]:
    def decode(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise InvalidParams(p.json_kind(value))
        return tuple(parse(item) for item in value)

    return decode


def _required(struct: str, decoded: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        if name not in decoded:
            raise InvalidParams(f"missing required field '{name}' for {struct}")


ACCESS_TUPLE_FIELDS = (
    Field("address", "common.Address", ADDRESS),
    Field("storageKeys", "[]common.Hash", _list_of(HASH)),
)


def access_tuple(value: Any) -> AccessTuple:
    got = decode_struct(value, "types.AccessTuple", ACCESS_TUPLE_FIELDS, "accessList.")
    _required("AccessTuple", got, ("address", "storageKeys"))
    return AccessTuple(got["address"], got["storageKeys"])


AUTHORIZATION_FIELDS = (
    Field("chainId", "hexutil.U256", BIG),
    Field("address", "common.Address", ADDRESS),
    Field("nonce", "hexutil.Uint64", UINT64),
    Field("yParity", "hexutil.Uint64", UINT64),
    Field("r", "hexutil.U256", BIG),
    Field("s", "hexutil.U256", BIG),
)


def authorization(value: Any) -> Authorization:
    got = decode_struct(
        value, "types.SetCodeAuthorization", AUTHORIZATION_FIELDS, "authorizationList."
    )
    names = ("chainId", "address", "nonce", "yParity", "r", "s")
    _required("SetCodeAuthorization", got, names)
    if got["yParity"] > 255:
        raise InvalidParams("json: cannot unmarshal yParity into uint8: value out of range")
    return Authorization(*(got[name] for name in names))


def _tx_type(value: Any) -> int:
    number = UINT64(value)
    if number not in KNOWN_TX_TYPES:
        raise InvalidParams("transaction type not supported")
    return int(number)


TRANSACTION_ARGS_FIELDS = (
    Field("from", "common.Address", ADDRESS),
    Field("to", "common.Address", ADDRESS),
    Field("gas", "hexutil.Uint64", UINT64),
    Field("gasPrice", "hexutil.Big", BIG),
    Field("maxFeePerGas", "hexutil.Big", BIG),
    Field("maxPriorityFeePerGas", "hexutil.Big", BIG),
    Field("value", "hexutil.Big", BIG),
    Field("nonce", "hexutil.Uint64", UINT64),
    Field("data", "hexutil.Bytes", BYTES),
    Field("input", "hexutil.Bytes", BYTES),
    Field("accessList", "types.AccessList", _list_of(access_tuple)),
    Field("chainId", "hexutil.Big", BIG),
    Field("type", "hexutil.Uint64", _tx_type),
    Field("maxFeePerBlobGas", "hexutil.Big", BIG),
    Field("blobVersionedHashes", "[]common.Hash", _list_of(HASH)),
    Field("blobs", "[]kzg4844.Blob", _list_of(_fixed_bytes(BLOB_SIZE, "kzg4844.Blob"))),
    Field(
        "commitments",
        "[]kzg4844.Commitment",
        _list_of(_fixed_bytes(KZG_SIZE, "kzg4844.Commitment")),
    ),
    Field("proofs", "[]kzg4844.Proof", _list_of(_fixed_bytes(KZG_SIZE, "kzg4844.Proof"))),
    Field("authorizationList", "[]types.SetCodeAuthorization", _list_of(authorization)),
)


def call_args(value: Any) -> CallArgs:
    """A transaction object (geth's TransactionArgs): every field decoded and checked."""
    got = decode_struct(value, "ethapi.TransactionArgs", TRANSACTION_ARGS_FIELDS)
    _check_consistent(got)
    data = got.get("input", got.get("data", b""))
    return CallArgs(
        from_=got.get("from"),
        to=got.get("to"),
        gas=got.get("gas"),
        gas_price=got.get("gasPrice"),
        max_fee=got.get("maxFeePerGas"),
        max_priority_fee=got.get("maxPriorityFeePerGas"),
        value=got.get("value", 0),
        nonce=got.get("nonce"),
        data=data,
        access_list=got.get("accessList"),
        chain_id=got.get("chainId"),
        tx_type=got.get("type"),
        max_fee_per_blob_gas=got.get("maxFeePerBlobGas"),
        blob_hashes=got.get("blobVersionedHashes"),
        blobs=got.get("blobs"),
        commitments=got.get("commitments"),
        proofs=got.get("proofs"),
        authorization_list=got.get("authorizationList"),
    )


def _check_consistent(got: dict[str, Any]) -> None:
    """The checks geth makes before looking at any state (CallDefaults, setDefaults)."""
    if "data" in got and "input" in got and got["data"] != got["input"]:
        raise InvalidParams(
            'both "data" and "input" are set and not equal. Please use "input" to pass '
            "transaction call data"
        )
    if "gasPrice" in got and ("maxFeePerGas" in got or "maxPriorityFeePerGas" in got):
        raise InvalidParams("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
    fee, tip = got.get("maxFeePerGas"), got.get("maxPriorityFeePerGas")
    if fee is not None and tip is not None and fee < tip:
        raise InvalidParams(f"maxFeePerGas ({hex(fee)}) < maxPriorityFeePerGas ({hex(tip)})")
    hashes = got.get("blobVersionedHashes")
    if hashes is not None:
        if not hashes:
            raise InvalidParams("need at least 1 blob for a blob transaction")
        if "to" not in got:
            raise InvalidParams('missing "to" in blob transaction')
    if "blobs" in got and "to" not in got:
        raise InvalidParams('missing "to" in blob transaction')
