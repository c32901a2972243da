"""Decoding signed transactions into the chain's `Tx` objects.

Fields and the sender are read directly (RLP, secp256k1 recovery): a pool admission needs no
more. The execution library's own object is built lazily, only when the EVM runs the
transaction, because building it costs as much again as everything else."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import rlp
from eth.vm.forks.prague.transactions import PragueTransactionBuilder

from snowfield.chains.evm.model import Authorization, Tx
from snowfield.crypto.hashing import keccak
from snowfield.crypto.secp256k1 import N, recover_address
from snowfield.errors import InvalidParams
from snowfield.formats.rlp import encode as rlp_encode

# Invariant: blob transactions cannot be carried by C-Chain blocks.
_SUPPORTED_TYPES = (1, 2, 4)
_TX_GAS = 21_000


def decode_tx(raw: bytes) -> Tx:
    """Parses and signature-checks raw transaction bytes; raises InvalidParams if malformed."""
    if not raw:
        raise InvalidParams("typed transaction too short")
    try:
        if raw[0] >= 0xC0:
            return _legacy(raw, rlp.decode(raw))
        if raw[0] not in _SUPPORTED_TYPES:
            raise InvalidParams("transaction type not supported")
        return _typed(raw, rlp.decode(raw[1:]))
    except rlp.DecodingError as exc:
        raise InvalidParams(f"rlp: {exc}") from None
    except (ValueError, TypeError, IndexError) as exc:
        raise InvalidParams(f"invalid transaction: {exc}") from None


def decode_unchecked(raw: bytes, sender: bytes) -> Tx:
    """Rebuilds a transaction accepted once before; its sender is known, not recovered.

    Also an impersonated account's transaction (anvil_impersonateAccount): signed by
    another key, it executes as sent by `sender`."""
    fields = rlp.decode(raw) if raw[0] >= 0xC0 else rlp.decode(raw[1:])
    return _build(raw, fields, sender=sender)


def intrinsic_gas(tx: Tx) -> int:
    if tx.to is not None and not tx.data and not tx.access_list and tx.type != 4:
        return _TX_GAS
    return int(tx.evm.intrinsic_gas)


def _legacy(raw: bytes, fields: Any) -> Tx:
    return _build(raw, fields, sender=None)


def _typed(raw: bytes, fields: Any) -> Tx:
    return _build(raw, fields, sender=None)


def _build(raw: bytes, fields: Any, sender: bytes | None) -> Tx:
    tx_type = 0 if raw[0] >= 0xC0 else raw[0]
    authorizations: tuple[Authorization, ...] = ()
    if not isinstance(fields, list):
        raise InvalidParams("rlp: expected input list for types.Transaction")
    want = {0: 9, 1: 11, 2: 12, 4: 13}[tx_type]
    if len(fields) != want:
        raise InvalidParams(f"rlp: wrong number of fields: have {len(fields)}, want {want}")
    if tx_type == 0:
        nonce, price, gas, to, value, data, v, r, s = fields
        chain_id = (_int(v) - 35) // 2 if _int(v) >= 35 else None
        max_fee = max_tip = _int(price)
        access: Any = []
        parity = _int(v) - (35 + 2 * chain_id if chain_id is not None else 27)
        unsigned: list[Any] = [nonce, price, gas, to, value, data]
        if chain_id is not None:
            unsigned += [chain_id, 0, 0]
        signing = keccak(rlp_encode(unsigned))
        v_field = _int(v)
    else:
        if tx_type == 1:
            chain, nonce, price, gas, to, value, data, access, y, r, s = fields
            max_fee = max_tip = _int(price)
        else:
            chain, nonce, tip, fee, gas, to, value, data, access = fields[:9]
            y, r, s = fields[-3:]
            max_fee, max_tip = _int(fee), _int(tip)
            if tx_type == 4:
                authorizations = _authorizations(fields[9])
        chain_id = _int(chain)
        parity = _int(y)
        signing = keccak(bytes([tx_type]) + rlp_encode(fields[:-3]))
        v_field = parity
    r_int, s_int = _int(r), _int(s)
    if s_int > N // 2:
        raise InvalidParams("invalid transaction v, r, s values")
    given = sender
    if sender is None:
        try:
            sender = recover_address(signing, parity, r_int, s_int)
        except ValueError:
            raise InvalidParams("invalid transaction v, r, s values") from None
    if to and len(to) != 20:
        raise InvalidParams("rlp: input string too long for common.Address")
    return Tx(
        hash=keccak(raw),
        raw=raw,
        type=tx_type,
        sender=sender,
        nonce=_int(nonce, 64),
        to=bytes(to) if to else None,
        value=_int(value),
        gas=_int(gas, 64),
        max_fee=max_fee,
        max_priority_fee=max_tip,
        data=bytes(data),
        chain_id=chain_id,
        access_list=_access_list(access),
        v=v_field,
        r=r_int,
        s=s_int,
        evm_factory=_factory(raw) if given is None else _factory_as(raw, given),
        authorizations=authorizations,
    )


def _factory(raw: bytes) -> Callable[[], Any]:
    return lambda: PragueTransactionBuilder.decode(raw)


def _factory_as(raw: bytes, sender: bytes) -> Callable[[], Any]:
    return lambda: _AsSender(PragueTransactionBuilder.decode(raw), sender)


class _AsSender:
    """py-evm's transaction with the sender the node was given instead of the recovered
    one; py-evm reads the sender only through `.sender`."""

    def __init__(self, inner: Any, sender: bytes) -> None:
        self._inner = inner
        self.sender = sender

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _int(value: Any, bits: int = 256) -> int:
    if not isinstance(value, bytes):
        raise InvalidParams("rlp: expected input string or byte for integer")
    if value[:1] == b"\x00":
        raise InvalidParams("rlp: non-canonical integer (leading zero bytes)")
    if len(value) * 8 > bits:
        raise InvalidParams(f"rlp: input string too long for uint{bits}")
    return int.from_bytes(value, "big")


def _access_list(value: Any) -> tuple[tuple[bytes, tuple[int, ...]], ...]:
    if not isinstance(value, list):
        raise InvalidParams("rlp: expected input list for types.AccessList")
    out = []
    for entry in value:
        if not isinstance(entry, list) or len(entry) != 2 or len(entry[0]) != 20:
            raise InvalidParams("rlp: invalid access list entry")
        keys = entry[1]
        if not isinstance(keys, list) or any(len(k) != 32 for k in keys):
            raise InvalidParams("rlp: invalid access list storage key")
        out.append((bytes(entry[0]), tuple(int.from_bytes(k, "big") for k in keys)))
    return tuple(out)


def _authorizations(value: Any) -> tuple[Authorization, ...]:
    if not isinstance(value, list):
        raise InvalidParams("rlp: expected input list for []types.SetCodeAuthorization")
    out = []
    for entry in value:
        if not isinstance(entry, list) or len(entry) != 6:
            raise InvalidParams("rlp: invalid set-code authorization")
        chain, address, nonce, y, r, s = entry
        if not isinstance(address, bytes) or len(address) != 20:
            raise InvalidParams("rlp: input string too long for common.Address")
        out.append(
            Authorization(_int(chain), address, _int(nonce, 64), _int(y, 8), _int(r), _int(s))
        )
    return tuple(out)


def encode_unsigned(fields: dict[str, Any]) -> bytes:
    """A transaction given as eth_account fields, encoded with a zero signature, as geth's
    eth_fillTransaction returns it (hex strings for to, data and addresses)."""
    tx_type = int(fields.get("type", 0))
    head = [fields["nonce"]]
    if tx_type == 0:
        body = [*head, fields["gasPrice"]]
    elif tx_type == 1:
        body = [fields["chainId"], *head, fields["gasPrice"]]
    else:
        body = [fields["chainId"], *head, fields["maxPriorityFeePerGas"], fields["maxFeePerGas"]]
    body += [fields["gas"], _hex(fields.get("to")), fields["value"], _hex(fields["data"])]
    if tx_type >= 1:
        body.append(
            [
                [_hex(a["address"]), [_hex(k) for k in a["storageKeys"]]]
                for a in fields.get("accessList", [])
            ]
        )
    if tx_type == 4:
        body.append(
            [
                [a["chainId"], _hex(a["address"]), a["nonce"], a["yParity"], a["r"], a["s"]]
                for a in fields["authorizationList"]
            ]
        )
    body += [0, 0, 0]
    encoded = rlp_encode(body)
    return encoded if tx_type == 0 else bytes([tx_type]) + encoded


def _hex(value: str | None) -> bytes:
    return bytes.fromhex(value[2:]) if value else b""
