"""ICM messenger events from receipt logs (formats/icm.py decodes them). Only logs emitted by
a messenger (formats/icm.MESSENGER_ADDRESSES: the real networks' TeleporterMessenger and the
devnet's own) count: any contract can emit a log with the messenger's topics, and a forged
SendCrossChainMessage must not show up as a message, nor in the ICM metrics. The emitter is
recorded (operation 16's `icmContractAddress`). A malformed messenger log is skipped and logged,
never fatal to the block."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from snowfield.formats.icm import MESSENGER_ADDRESSES, SIGNATURES, IcmDecodeError, decode_event
from snowfield.indexer.extract.hexnum import addr, data_bytes, qty, successful_logs
from snowfield.store.rows import IcmEventRow

log = logging.getLogger("snowfield.indexer")


def icm_rows(
    chain_id: int,
    block_number: int,
    timestamp: int,
    receipts: Sequence[dict[str, Any]],
    messengers: frozenset[str] = frozenset(MESSENGER_ADDRESSES),
) -> list[IcmEventRow]:
    """The messenger events of a block's receipts; `messengers`: the emitters that count."""
    rows: list[IcmEventRow] = []
    for tx_index, receipt, item in successful_logs(receipts):
        topics = [t.lower() for t in item.get("topics") or ()]
        if not topics or topics[0] not in SIGNATURES:
            continue
        if str(item.get("address") or "").lower() not in messengers:
            continue  # a messenger-shaped log from another contract: a forgery
        try:
            event = decode_event(topics, data_bytes(item.get("data")))
        except IcmDecodeError as exc:
            log.warning("chain %s block %s: %s", chain_id, block_number, exc)
            continue
        if event is None:
            continue
        message = event.message
        rows.append(
            IcmEventRow(
                chain_id=chain_id,
                block_number=block_number,
                tx_index=tx_index,
                log_index=qty(item["logIndex"]),
                tx_hash=addr(receipt["transactionHash"]),
                block_timestamp=timestamp,
                gas_spent=qty(receipt.get("gasUsed"), 0),
                contract=addr(item["address"]),
                kind=event.kind,
                message_id=event.message_id,
                peer_chain=event.peer_chain,
                nonce=None if message is None else message.nonce,
                origin=None if message is None else message.origin,
                destination_chain=None if message is None else message.destination_chain,
                destination=None if message is None else message.destination,
                payload=None if message is None else message.payload,
                receipts=() if message is None else message.receipts,
                fee_token=event.fee_token,
                fee_amount=event.fee_amount,
                deliverer=event.deliverer,
                reward_redeemer=event.reward_redeemer,
            )
        )
    return rows
