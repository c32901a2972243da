"""The L1 txs' changes of validator fee balances (store/l1_fees.py replays them with the blocks'
times): pure, from a tx's bytes as the node accepted it."""

from __future__ import annotations

from snowfield.errors import InvalidParams
from snowfield.formats.ids import NodeID
from snowfield.formats.platform.l1_txs import (
    ConvertSubnetToL1Tx,
    DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx,
    RegisterL1ValidatorTx,
    SetL1ValidatorWeightTx,
    initial_validation_id,
)
from snowfield.formats.warp.message import Message
from snowfield.formats.warp.payload import AddressedCall, decode_payload
from snowfield.formats.warp.platform_messages import (
    L1Message,
    L1ValidatorWeight,
    RegisterL1Validator,
    decode_message,
)
from snowfield.store.primary_rows import L1Event


def l1_events(unsigned: object) -> list[L1Event]:
    """The fee balance changes of one accepted tx (none for other txs)."""
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        return [
            L1Event("add", str(initial_validation_id(unsigned.subnet_id, i)),
                    str(unsigned.subnet_id), _node(v.node_id), v.balance)
            for i, v in enumerate(unsigned.validators)
        ]  # fmt: skip
    if isinstance(unsigned, IncreaseL1ValidatorBalanceTx):
        return [L1Event("topup", str(unsigned.validation_id), amount=unsigned.balance)]
    if isinstance(unsigned, DisableL1ValidatorTx):
        return [L1Event("disable", str(unsigned.validation_id))]
    if isinstance(unsigned, RegisterL1ValidatorTx):
        inner = _message(unsigned.message)
        if isinstance(inner, RegisterL1Validator):
            return [L1Event("add", str(inner.validation_id), str(inner.subnet_id),
                            _node(inner.node_id), unsigned.balance)]  # fmt: skip
    if isinstance(unsigned, SetL1ValidatorWeightTx):
        inner = _message(unsigned.message)
        if isinstance(inner, L1ValidatorWeight) and inner.weight == 0:
            return [L1Event("remove", str(inner.validation_id))]
    return []


def _message(data: bytes) -> L1Message | None:
    """The L1 message a Warp message carries; None when the node accepted one this cannot
    read (the tx was valid to the node, so it is not ours to reject)."""
    try:
        payload = decode_payload(Message.decode(data).unsigned.payload)
        if not isinstance(payload, AddressedCall):
            return None
        return decode_message(payload.payload)
    except InvalidParams:
        return None


def _node(raw: bytes) -> str:
    return str(NodeID(raw)) if len(raw) == 20 else "0x" + raw.hex()
