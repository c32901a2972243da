"""Signed P-Chain txs: `Tx` = unsigned tx + credentials; ids, signing bytes, encode/decode.

Public API: `Tx(unsigned, credentials)`; `Tx.encode()` (`u16 version | iface unsigned | list<iface
credential>`), `Tx.decode(data)`, `Tx.id` (sha256 of the signed bytes), `Tx.unsigned_bytes()` (what
the keys sign, hashed with sha256), and `pack`/`unpack` for the version-less form blocks embed.
Importing this module registers every tx type of the platformvm codec.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Self

from snowfield.formats.codec import CODEC_VERSION, Packer, Unpacker
from snowfield.formats.ids import ID
from snowfield.formats.platform import l1_txs, staking_txs, subnet_txs, transfer_txs
from snowfield.formats.platform.signer import EmptySigner, ProofOfPossession
from snowfield.formats.platform.stakeable import LockIn, LockOut
from snowfield.formats.platform.types import PLATFORM_TYPES, TX_MAX_SIZE, AnyCredential, UnsignedTx
from snowfield.formats.registry import TopLevel, decode_top, encode_top

# Every type of the codec is registered by importing its module; keep them referenced.
REGISTERED_MODULES = (l1_txs, staking_txs, subnet_txs, transfer_txs)
REGISTERED_TYPES = (EmptySigner, ProofOfPossession, LockIn, LockOut)
_MIN_CREDENTIAL_SIZE = 4 + 4


def _pack_credential(packer: Packer, credential: AnyCredential) -> None:
    PLATFORM_TYPES.pack(packer, credential)


def _read_credential(reader: Unpacker) -> AnyCredential:
    return PLATFORM_TYPES.unpack(reader, AnyCredential)


_VERSION_SIZE = 2  # the codec version every top-level encoding starts with
_VERSION = CODEC_VERSION.to_bytes(_VERSION_SIZE, "big")


def unsigned_bytes(unsigned: UnsignedTx) -> bytes:
    """`u16 version | type id | fields`: the bytes whose sha256 every credential signs."""
    return PLATFORM_TYPES.encode(unsigned, max_size=TX_MAX_SIZE)


def decode_unsigned(data: bytes) -> UnsignedTx:
    """Parse unsigned tx bytes (with their version), consuming every byte."""
    return PLATFORM_TYPES.decode(data, UnsignedTx, max_size=TX_MAX_SIZE)


@dataclass(frozen=True, slots=True)
class Tx(TopLevel):
    """A signed P-Chain tx: one credential per input in input order, then one per auth field."""

    unsigned: UnsignedTx
    credentials: tuple[AnyCredential, ...] = ()
    # The bytes `decode` read (the codec has one encoding per value, so they are what `encode`
    # would write); kept so ids of received txs cost a hash, not a re-encoding. Not compared.
    raw: bytes = field(default=b"", compare=False, repr=False, kw_only=True)
    # How many bytes of the encoding (after the version) the unsigned tx took, when decoded.
    unsigned_size: int = field(default=0, compare=False, repr=False, kw_only=True)
    # The id, computed once: verification, blocks, the index and the API all ask for it.
    cached_id: ID | None = field(default=None, compare=False, repr=False, kw_only=True)

    def encode(self) -> bytes:
        return self.raw or encode_top(self.pack, max_size=self.max_size)

    @classmethod
    def decode(cls, data: bytes) -> Self:
        """Parse signed tx bytes; InvalidParams on truncated, trailing, unknown or invalid input."""
        return decode_top(data, cls.unpack, max_size=cls.max_size)  # `unpack` keeps the bytes

    def pack(self, packer: Packer) -> None:
        if self.raw:  # a received tx inside a block: its bytes as read, without the version
            packer.fixed(self.raw[_VERSION_SIZE:])
            return
        PLATFORM_TYPES.pack(packer, self.unsigned)
        packer.items(self.credentials, _pack_credential)

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        start = reader.offset
        unsigned = PLATFORM_TYPES.unpack(reader, UnsignedTx)
        size = reader.offset - start
        credentials = tuple(reader.items(_read_credential, min_item_size=_MIN_CREDENTIAL_SIZE))
        # A tx read inside a block keeps its bytes too: its id is then a hash, not a
        # re-encoding (the indexer and a journal replay read every block's txs this way).
        raw = _VERSION + reader.read_since(start)
        return cls(unsigned, credentials, raw=raw, unsigned_size=size)

    def unsigned_bytes(self) -> bytes:
        """What the credentials sign: a slice of the received bytes, or the unsigned encoded."""
        if self.raw and self.unsigned_size:
            return self.raw[: _VERSION_SIZE + self.unsigned_size]
        return unsigned_bytes(self.unsigned)

    @property
    def id(self) -> ID:
        """The tx id: sha256 of the signed bytes, version included."""
        if self.cached_id is None:  # frozen, but the id is a pure function of the fields
            object.__setattr__(self, "cached_id", ID(hashlib.sha256(self.encode()).digest()))
        assert self.cached_id is not None
        return self.cached_id
