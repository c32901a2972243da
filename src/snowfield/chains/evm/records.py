"""The journal record of an accepted block: block bytes, receipts, senders and state writes."""

from __future__ import annotations

import rlp

from snowfield.chains.evm.execution.transactions import decode_unchecked
from snowfield.chains.evm.model import Block, Header, Log, Receipt, Tx
from snowfield.crypto.hashing import keccak
from snowfield.formats.rlp import encode as rlp_encode
from snowfield.formats.rlp import encode_bytes, encode_list_of_encoded

_VERSION = 1


def encode(block: Block, writes: dict[bytes, bytes], header_rlp: bytes | None = None) -> bytes:
    """The record's RLP; `header_rlp` is the header's encoding when the caller has it."""
    pairs = [encode_list_of_encoded([encode_bytes(k), encode_bytes(v)]) for k, v in writes.items()]
    return encode_list_of_encoded(
        [
            rlp_encode(_VERSION),
            encode_bytes(block.header.encode() if header_rlp is None else header_rlp),
            rlp_encode([tx.raw for tx in block.txs]),
            rlp_encode([tx.sender for tx in block.txs]),
            rlp_encode([r.encode() for r in block.receipts]),
            encode_list_of_encoded(pairs),
            rlp_encode(block.accepted_ns),
            rlp_encode(block.ext_data),
            rlp_encode(block.version),
        ]
    )


def decode(record: bytes, chain_id: int) -> tuple[Block, dict[bytes, bytes]]:
    """Rebuilds a block and the state writes it made from its journal record."""
    from snowfield.chains.evm.model import encode_block

    items = rlp.decode(record)
    header = Header.decode(bytes(items[1]))
    txs = tuple(
        decode_unchecked(bytes(raw), bytes(sender))
        for raw, sender in zip(items[2], items[3], strict=True)
    )
    receipts = _receipts(items[4], txs, header.base_fee)
    writes = {bytes(k): bytes(v) for k, v in items[5]}
    accepted_ns = int.from_bytes(items[6], "big")
    ext_data = bytes(items[7])
    version = int.from_bytes(items[8], "big")
    body = encode_block(header, txs, ext_data, version)
    return Block(
        header, header.compute_hash(), txs, receipts, body, accepted_ns, ext_data, version
    ), writes


def _receipts(encoded: list[bytes], txs: tuple[Tx, ...], base_fee: int) -> tuple[Receipt, ...]:
    out = []
    previous = 0
    for data, tx in zip(encoded, txs, strict=True):
        data = bytes(data)
        tx_type = data[0] if data[0] <= 0x7F else 0
        status, cumulative, bloom, logs = rlp.decode(data[1:] if tx_type else data)
        cumulative_gas = int.from_bytes(cumulative, "big")
        status_code = int.from_bytes(status, "big")
        created = None
        if tx.to is None and status_code == 1:
            created = keccak(rlp.encode([tx.sender, tx.nonce]))[12:]
        out.append(
            Receipt(
                type=tx_type,
                status=status_code,
                cumulative_gas=cumulative_gas,
                gas_used=cumulative_gas - previous,
                logs=tuple(
                    Log(bytes(a), tuple(bytes(t) for t in ts), bytes(d)) for a, ts, d in logs
                ),
                bloom=bytes(bloom),
                contract_address=created,
                effective_gas_price=tx.effective_gas_price(base_fee),
            )
        )
        previous = cumulative_gas
    return tuple(out)
