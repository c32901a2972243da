"""What each L1 validator tx does to a validation, read from the tx (and from the Warp message
it carries): the facts validator_activity webhooks report and match on (store/
webhook_validators.py). The P-Chain accepted the tx, so its message verified; a message this
module cannot read (a future codec) yields no change rather than a failed batch."""

from __future__ import annotations

import logging

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
from snowfield.store.primary_rows import L1Change

log = logging.getLogger("snowfield.indexer.l1")


def node_text(raw: bytes) -> str:
    """A node id as the data API writes it (NodeID-... for 20 bytes, else 0x-hex)."""
    return str(NodeID(raw)) if len(raw) == 20 else "0x" + raw.hex()


def _message(signed: bytes) -> L1Message | None:
    try:
        payload = decode_payload(Message.decode(signed).unsigned.payload)
        if not isinstance(payload, AddressedCall):
            return None
        return decode_message(payload.payload)
    except (InvalidParams, ValueError) as exc:
        log.warning("an accepted L1 tx's Warp message could not be read: %s", exc)
        return None


def l1_changes(tx_id: str, index: int, unsigned: object) -> list[L1Change]:
    """The changes of one tx (none for a tx that is not an L1 validator tx)."""
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        subnet = str(unsigned.subnet_id)
        return [
            L1Change(
                tx_id,
                index,
                "register",
                str(initial_validation_id(unsigned.subnet_id, i)),
                node_text(v.node_id),
                subnet,
                v.weight,
                v.balance,
            )
            for i, v in enumerate(unsigned.validators)
        ]
    if isinstance(unsigned, IncreaseL1ValidatorBalanceTx):
        validation = str(unsigned.validation_id)
        return [L1Change(tx_id, index, "increase", validation, balance=unsigned.balance)]
    if isinstance(unsigned, DisableL1ValidatorTx):
        return [L1Change(tx_id, index, "disable", str(unsigned.validation_id))]
    if isinstance(unsigned, RegisterL1ValidatorTx):
        message = _message(unsigned.message)
        if not isinstance(message, RegisterL1Validator):
            return []
        return [
            L1Change(
                tx_id,
                index,
                "register",
                str(message.validation_id),
                node_text(message.node_id),
                str(message.subnet_id),
                message.weight,
                unsigned.balance,
            )
        ]
    if isinstance(unsigned, SetL1ValidatorWeightTx):
        message = _message(unsigned.message)
        if not isinstance(message, L1ValidatorWeight):
            return []
        validation = str(message.validation_id)
        return [L1Change(tx_id, index, "weight", validation, weight=message.weight)]
    return []
