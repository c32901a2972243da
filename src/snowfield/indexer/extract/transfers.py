"""ERC-20, ERC-721 and ERC-1155 transfers from receipt logs (Transfer, TransferSingle,
TransferBatch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snowfield.indexer.extract.hexnum import (
    addr,
    data_bytes,
    qty,
    successful_logs,
    topic_address,
)
from snowfield.store.rows import TransferRow

TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"


def transfer_rows(
    chain_id: int, block_number: int, timestamp: int, receipts: Sequence[dict[str, Any]]
) -> list[TransferRow]:
    rows: list[TransferRow] = []
    for tx_index, receipt, log in successful_logs(receipts):
        tx_hash = addr(receipt["transactionHash"])
        rows.extend(_from_log(chain_id, block_number, timestamp, tx_index, tx_hash, log))
    return rows


def _from_log(
    chain_id: int, number: int, timestamp: int, tx_index: int, tx_hash: str, log: dict[str, Any]
) -> list[TransferRow]:
    topics = [t.lower() for t in log.get("topics") or ()]
    if not topics:
        return []
    data = data_bytes(log.get("data"))

    def row(
        kind: str, src: str, dst: str, token_id: int | None, value: int, i: int = 0
    ) -> TransferRow:
        return TransferRow(
            chain_id=chain_id,
            block_number=number,
            tx_index=tx_index,
            log_index=qty(log["logIndex"]),
            batch_index=i,
            tx_hash=tx_hash,
            block_timestamp=timestamp,
            token=addr(log["address"]),
            erc_type=kind,
            from_addr=src,
            to_addr=dst,
            token_id=token_id,
            value=value,
        )

    head = topics[0]
    if head == TRANSFER and len(topics) == 3 and len(data) == 32:
        return [
            row("ERC-20", topic_address(topics[1]), topic_address(topics[2]), None, _word(data, 0))
        ]
    if head == TRANSFER and len(topics) == 4 and not data:
        return [
            row(
                "ERC-721", topic_address(topics[1]), topic_address(topics[2]), int(topics[3], 16), 1
            )
        ]
    if head == TRANSFER_SINGLE and len(topics) == 4 and len(data) == 64:
        src, dst = topic_address(topics[2]), topic_address(topics[3])
        return [row("ERC-1155", src, dst, _word(data, 0), _word(data, 1))]
    if head == TRANSFER_BATCH and len(topics) == 4:
        pairs = _batch(data)
        src, dst = topic_address(topics[2]), topic_address(topics[3])
        return [row("ERC-1155", src, dst, i, v, n) for n, (i, v) in enumerate(pairs)]
    return []


def _word(data: bytes, n: int) -> int:
    return int.from_bytes(data[32 * n : 32 * n + 32], "big")


def _batch(data: bytes) -> list[tuple[int, int]]:
    """The (id, value) pairs of TransferBatch data: two dynamic uint256 arrays; malformed → []."""
    try:
        ids = _array(data, _word(data, 0))
        values = _array(data, _word(data, 1))
    except ValueError:
        return []
    return list(zip(ids, values, strict=True)) if len(ids) == len(values) else []


def _array(data: bytes, offset: int) -> list[int]:
    if offset % 32 or offset + 32 > len(data):
        raise ValueError("bad offset")
    count = int.from_bytes(data[offset : offset + 32], "big")
    if offset + 32 + 32 * count > len(data):
        raise ValueError("bad length")
    start = offset // 32 + 1
    return [_word(data, start + i) for i in range(count)]
