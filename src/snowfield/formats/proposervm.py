"""The ProposerVM wrapper around P/X/C blocks: statelessBlock, its Granite form, and option."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass

from snowfield.errors import InvalidParams
from snowfield.formats.codec import CODEC_VERSION, Packer, Unpacker
from snowfield.formats.ids import ID, NodeID

STATELESS_BLOCK_TYPE = 0
OPTION_TYPE = 1
GRANITE_BLOCK_TYPE = 2
# The node sets no codec limit here (math.MaxInt); the p2p message limit bounds blocks instead.
_NO_LIMIT = sys.maxsize


@dataclass(frozen=True, slots=True)
class Epoch:
    """The P-Chain epoch a Granite block was built in."""

    p_chain_height: int
    number: int
    start_time: int  # unix seconds


@dataclass(frozen=True, slots=True)
class ProposerBlock:
    """A parsed or built wrapper; StatelessBlock and OptionBlock are the concrete kinds."""

    parent_id: ID
    inner_block: bytes

    def encode(self) -> bytes:
        raise NotImplementedError

    def _id_preimage(self) -> bytes:
        raise NotImplementedError

    @property
    def id(self) -> ID:
        """The block id the consensus engine and the index API use."""
        return ID(hashlib.sha256(self._id_preimage()).digest())

    @staticmethod
    def parse(data: bytes) -> ProposerBlock:
        """Parse wrapper bytes (type 0, 1 or 2); raises InvalidParams on anything else."""
        return parse(data)


@dataclass(frozen=True, slots=True, kw_only=True)
class StatelessBlock(ProposerBlock):
    """statelessBlock (type 0), or statelessGraniteBlock (type 2) when epoch is set.

    Unsigned blocks (built before the proposer window closes) carry an empty certificate and
    signature; signed ones carry the proposer's DER staking certificate and its signature.
    """

    timestamp: int  # unix seconds (i64)
    p_chain_height: int
    certificate: bytes = b""
    signature: bytes = b""
    epoch: Epoch | None = None

    def _unsigned(self) -> Packer:
        packer = Packer(max_size=_NO_LIMIT).u16(CODEC_VERSION)
        packer.u32(STATELESS_BLOCK_TYPE if self.epoch is None else GRANITE_BLOCK_TYPE)
        packer.fixed(self.parent_id.raw).i64(self.timestamp).u64(self.p_chain_height)
        packer.var_bytes(self.certificate).var_bytes(self.inner_block)
        if self.epoch is not None:
            packer.u64(self.epoch.p_chain_height).u64(self.epoch.number)
            packer.i64(self.epoch.start_time)
        return packer

    def encode(self) -> bytes:
        return self._unsigned().var_bytes(self.signature).to_bytes()

    def _id_preimage(self) -> bytes:
        # Invariant: the id covers everything before the signature's u32 length prefix, so it is
        # the same before and after signing (the signature itself is over a header with this id).
        return self._unsigned().to_bytes()

    @property
    def proposer(self) -> NodeID | None:
        """The NodeID of the certificate's holder; None for an unsigned block."""
        return NodeID.from_certificate(self.certificate) if self.certificate else None


@dataclass(frozen=True, slots=True)
class OptionBlock(ProposerBlock):
    """option (type 1): a commit/abort child of a proposal block; id = sha256(all bytes)."""

    def encode(self) -> bytes:
        packer = Packer(max_size=_NO_LIMIT).u16(CODEC_VERSION).u32(OPTION_TYPE)
        return packer.fixed(self.parent_id.raw).var_bytes(self.inner_block).to_bytes()

    def _id_preimage(self) -> bytes:
        return self.encode()


def parse(data: bytes) -> ProposerBlock:
    """Parse wrapper bytes into a StatelessBlock or OptionBlock; every byte must be consumed."""
    reader = Unpacker(data, max_size=_NO_LIMIT)
    reader.version()
    type_id = reader.u32()
    block: ProposerBlock
    if type_id == OPTION_TYPE:
        block = OptionBlock(ID(reader.fixed(32)), reader.var_bytes())
    elif type_id in (STATELESS_BLOCK_TYPE, GRANITE_BLOCK_TYPE):
        block = _read_stateless(reader, granite=type_id == GRANITE_BLOCK_TYPE)
    else:
        raise InvalidParams(f"unknown proposervm block type id {type_id}")
    reader.finish()
    return block


def _read_stateless(reader: Unpacker, *, granite: bool) -> StatelessBlock:
    parent_id = ID(reader.fixed(32))
    timestamp, p_chain_height = reader.i64(), reader.u64()
    certificate, inner_block = reader.var_bytes(), reader.var_bytes()
    epoch = Epoch(reader.u64(), reader.u64(), reader.i64()) if granite else None
    return StatelessBlock(
        parent_id=parent_id,
        inner_block=inner_block,
        timestamp=timestamp,
        p_chain_height=p_chain_height,
        certificate=certificate,
        signature=reader.var_bytes(),
        epoch=epoch,
    )


def signing_header(chain_id: ID, parent_id: ID, body_id: ID) -> bytes:
    """The bytes a proposer signs (sha256 then its TLS key): version ‖ chain ‖ parent ‖ block id."""
    packer = Packer().u16(CODEC_VERSION).fixed(chain_id.raw).fixed(parent_id.raw)
    return packer.fixed(body_id.raw).to_bytes()
