"""A C-Chain block's extra data: the batch of atomic txs it accepts.

Since ApricotPhase5 the extra data is a batch, `u16 version | list<tx>` (non-empty); no atomic
tx is the empty byte string. (The header's ExtDataHash, keccak256 of its RLP string, is
computed in `chains.evm`: formats hash with sha256 only.)

Public API: `encode_batch`, `decode_batch`, `block_ext_data`.
"""

from __future__ import annotations

from collections.abc import Sequence

import rlp

from snowfield.errors import InvalidParams
from snowfield.formats.atomic.txs import AtomicTx
from snowfield.formats.codec import Packer
from snowfield.formats.registry import decode_top, encode_top

# coreth bounds a block's atomic txs by size, not count: the codec manager's 1 MiB.
EXT_DATA_MAX_SIZE = 1024 * 1024
_MIN_TX_SIZE = 4 + 4 + 32 + 32 + 32 + 4 + 4 + 4


def _pack_tx(packer: Packer, tx: AtomicTx) -> None:
    tx.pack(packer)


def encode_batch(txs: Sequence[AtomicTx]) -> bytes:
    """The extra data of a block holding `txs` (b"" for none)."""
    if not txs:
        return b""
    return encode_top(lambda p: p.items(txs, _pack_tx), max_size=EXT_DATA_MAX_SIZE)


def decode_batch(data: bytes) -> tuple[AtomicTx, ...]:
    """The atomic txs of a block's extra data; InvalidParams on malformed or empty batches."""
    if not data:
        return ()
    txs = decode_top(
        data,
        lambda r: r.items(AtomicTx.unpack, min_item_size=_MIN_TX_SIZE),
        max_size=EXT_DATA_MAX_SIZE,
    )
    if not txs:
        raise InvalidParams("atomic tx batch is empty")
    # Each tx's own bytes (version + tx) give its id, as coreth re-marshals each one.
    return tuple(AtomicTx(tx.unsigned, tx.credentials) for tx in txs)


def block_ext_data(block: bytes) -> tuple[int, bytes]:
    """(the block number, the extra data) of a coreth block's encoding, RLP [header, txs,
    uncles, version, extData] (b"" for a block before ApricotPhase1, which has none)."""
    try:
        items = rlp.decode(block)
    except rlp.exceptions.DecodingError as exc:
        raise InvalidParams(f"not a C-Chain block: {exc}") from None
    if not isinstance(items, list) or len(items) < 3:
        raise InvalidParams("not a C-Chain block: RLP [header, txs, uncles, ...] expected")
    extra = items[4] if len(items) >= 5 else b""
    header = items[0]
    if not isinstance(extra, bytes) or not isinstance(header, list) or len(header) < 9:
        raise InvalidParams("not a C-Chain block: a header and byte-string extra data expected")
    return int.from_bytes(header[8], "big"), extra
