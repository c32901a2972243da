"""The journal's records: an accepted block (block bytes, receipts, senders and state writes),
a state edit made by a cheat code, and a rewind of the chain to an earlier height."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import rlp

from snowfield.chains.evm.execution.transactions import decode_unchecked
from snowfield.chains.evm.model import Block, Header, Log, Receipt, Tx, encode_block
from snowfield.crypto.hashing import keccak
from snowfield.formats.rlp import encode as rlp_encode
from snowfield.formats.rlp import encode_bytes, encode_list_of_encoded

_VERSION = 1  # the first item of every record: its kind (a block record's version is 1)
_STATE_EDIT = 2
_REWIND = 3


@dataclass(frozen=True, slots=True)
class StateEdit:
    """The head's state replaced without a block (anvil_setBalance and friends)."""

    root: bytes
    writes: dict[bytes, bytes]


@dataclass(frozen=True, slots=True)
class Rewind:
    """The chain cut back to `height` with head state `root` (evm_revert, anvil_reset)."""

    height: int
    root: bytes


Record = tuple[Block, dict[bytes, bytes]] | StateEdit | Rewind


def encode_edit(edit: StateEdit) -> bytes:
    pairs = [
        encode_list_of_encoded([encode_bytes(k), encode_bytes(v)]) for k, v in edit.writes.items()
    ]
    return encode_list_of_encoded(
        [rlp_encode(_STATE_EDIT), encode_bytes(edit.root), encode_list_of_encoded(pairs)]
    )


def encode_rewind(rewind: Rewind) -> bytes:
    return rlp_encode([_REWIND, rewind.height, rewind.root])


def decode_any(record: bytes, chain_id: int, header_type: type[Header] = Header) -> Record:
    """A journal record of any kind; blocks' headers in `header_type`'s layout."""
    items = rlp.decode(record)
    kind = int.from_bytes(items[0], "big")
    if kind == _STATE_EDIT:
        return StateEdit(bytes(items[1]), {bytes(k): bytes(v) for k, v in items[2]})
    if kind == _REWIND:
        return Rewind(int.from_bytes(items[1], "big"), bytes(items[2]))
    return _block(items, header_type)


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


def _block(items: Any, header_type: type[Header] = Header) -> tuple[Block, dict[bytes, bytes]]:
    header = header_type.decode(bytes(items[1]))
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
