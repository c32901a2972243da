"""Decoding signed transactions into the chain's `Tx` objects."""

from __future__ import annotations

from typing import Any

import rlp
from eth.abc import SignedTransactionAPI
from eth.vm.forks.prague.transactions import PragueTransactionBuilder

from snowfield.chains.evm.model import Tx
from snowfield.errors import InvalidParams

# Invariant: blob transactions cannot be carried by C-Chain blocks.
_SUPPORTED_TYPES = (0, 1, 2, 4)


def decode_tx(raw: bytes) -> Tx:
    """Parses and signature-checks raw transaction bytes; raises InvalidParams if malformed."""
    if not raw:
        raise InvalidParams("typed transaction too short")
    if raw[0] <= 0x7F and raw[0] not in _SUPPORTED_TYPES:
        raise InvalidParams("transaction type not supported")
    try:
        evm_tx = PragueTransactionBuilder.decode(raw)
        sender = bytes(evm_tx.sender)
    except Exception as exc:  # the library raises many kinds for malformed input
        raise InvalidParams(_decode_message(exc)) from exc
    return from_evm(evm_tx, raw, sender)


def from_evm(evm_tx: SignedTransactionAPI, raw: bytes, sender: bytes) -> Tx:
    tx_type = raw[0] if raw[0] <= 0x7F else 0
    if tx_type in (0, 1):
        max_fee = max_tip = int(evm_tx.gas_price)
    else:
        max_fee = int(evm_tx.max_fee_per_gas)
        max_tip = int(evm_tx.max_priority_fee_per_gas)
    chain_id = evm_tx.chain_id if tx_type else _legacy_chain_id(evm_tx.v)
    access = tuple(
        (bytes(addr), tuple(int(k) for k in keys)) for addr, keys in _access_list(evm_tx)
    )
    to = bytes(evm_tx.to) if evm_tx.to else None
    v = int(evm_tx.v) if tx_type == 0 else int(evm_tx.y_parity)
    return Tx(
        hash=bytes(evm_tx.hash),
        raw=raw,
        type=tx_type,
        sender=sender,
        nonce=int(evm_tx.nonce),
        to=to,
        value=int(evm_tx.value),
        gas=int(evm_tx.gas),
        max_fee=max_fee,
        max_priority_fee=max_tip,
        data=bytes(evm_tx.data),
        chain_id=chain_id,
        access_list=access,
        v=v,
        r=int(evm_tx.r),
        s=int(evm_tx.s),
        evm=evm_tx,
    )


def encode_evm(evm_tx: SignedTransactionAPI) -> bytes:
    return bytes(evm_tx.encode()) if hasattr(evm_tx, "type_id") else rlp.encode(evm_tx)


def intrinsic_gas(tx: Tx) -> int:
    return int(tx.evm.intrinsic_gas)


def _access_list(evm_tx: Any) -> list[tuple[bytes, list[int]]]:
    try:
        return list(evm_tx.access_list)
    except AttributeError:
        return []


def _legacy_chain_id(v: int) -> int | None:
    return (v - 35) // 2 if v >= 35 else None


def _decode_message(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return f"rlp: {text}" if isinstance(exc, rlp.DecodingError) else f"invalid transaction: {text}"


def decode_unchecked(raw: bytes, sender: bytes) -> Tx:
    """Rebuilds a transaction already accepted once; its sender is known, not recovered."""
    return from_evm(PragueTransactionBuilder.decode(raw), raw, sender)
