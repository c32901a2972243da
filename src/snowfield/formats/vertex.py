"""Legacy X-Chain DAG vertices (frozen since Cortina): `version u16 | chainID | height u64 |
epoch u32 | parentIDs | txs (each length-prefixed)`; version 1 is the stop vertex (no txs).

The id of a vertex is sha256 of its bytes; a tx's id is sha256 of its bytes. Decoding enforces
avalanchego's syntactic rules: parents sorted and unique, txs sorted by id and unique, a
standard vertex has at least one tx, a stop vertex none, epoch 0."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID

VERSION = 0
STOP_VERSION = 1
MAX_SIZE = 1 << 20  # avalanchego's vertex codec limit (1 MiB)
MAX_PARENTS = 128  # at most this many parents (avalanchego's maxNumParents)
MAX_TXS = 128  # at most this many txs (maxTxsPerVtx)


@dataclass(frozen=True, slots=True)
class Vertex:
    chain_id: ID
    height: int
    parent_ids: tuple[ID, ...]
    txs: tuple[bytes, ...]
    epoch: int = 0
    stop: bool = False

    def encode(self) -> bytes:
        packer = Packer(max_size=MAX_SIZE).u16(STOP_VERSION if self.stop else VERSION)
        packer.fixed(self.chain_id.raw).u64(self.height).u32(self.epoch)
        packer.items(self.parent_ids, lambda p, i: p.fixed(i.raw))
        if not self.stop:
            packer.items(self.txs, lambda p, tx: p.var_bytes(tx))
        return packer.to_bytes()

    @property
    def id(self) -> ID:
        return ID(hashlib.sha256(self.encode()).digest())

    @property
    def tx_ids(self) -> tuple[ID, ...]:
        return tuple(ID(hashlib.sha256(tx).digest()) for tx in self.txs)


def decode_vertex(data: bytes) -> Vertex:
    """A vertex from its bytes; InvalidParams on anything avalanchego's parser refuses."""
    reader = Unpacker(data, max_size=MAX_SIZE)
    if reader.remaining < 2:
        raise InvalidParams("couldn't unpack codec version")
    version = reader.u16()
    if version not in (VERSION, STOP_VERSION):
        raise InvalidParams("unknown codec version")
    chain_id, height, epoch = ID(reader.fixed(32)), reader.u64(), reader.u32()
    parents = tuple(reader.items(lambda r: ID(r.fixed(32)), min_item_size=32))
    txs: tuple[bytes, ...] = ()
    if version == VERSION:
        txs = tuple(reader.items(lambda r: r.var_bytes(), min_item_size=4))
    reader.finish()
    vertex = Vertex(chain_id, height, parents, txs, epoch, version == STOP_VERSION)
    _verify(vertex)
    return vertex


def _verify(vertex: Vertex) -> None:
    if vertex.epoch != 0:
        raise InvalidParams("vertex: epoch must be 0")
    raw = [p.raw for p in vertex.parent_ids]
    if len(raw) > MAX_PARENTS:
        raise InvalidParams(f"vertex contains more than {MAX_PARENTS} parents")
    if raw != sorted(set(raw)):
        raise InvalidParams("vertex: parents must be sorted and unique")
    if vertex.stop:
        return
    if not vertex.txs:
        raise InvalidParams("vertex contains no transactions")
    if len(vertex.txs) > MAX_TXS:
        raise InvalidParams(f"vertex contains more than {MAX_TXS} transactions")
    hashes = [hashlib.sha256(tx).digest() for tx in vertex.txs]
    if hashes != sorted(set(hashes)):
        raise InvalidParams("vertex: transactions must be sorted by id and unique")
