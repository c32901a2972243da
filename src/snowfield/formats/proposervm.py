"""The ProposerVM block wrapper around chain blocks (what the index API's containers hold)."""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass

_CODEC_VERSION = 0
_STATELESS = 0


@dataclass(frozen=True, slots=True)
class ProposerBlock:
    """An unsigned post-fork block: no certificate, no signature."""

    parent_id: bytes
    timestamp: int
    p_chain_height: int
    inner: bytes
    certificate: bytes = b""
    signature: bytes = b""

    def encode(self) -> bytes:
        return self._unsigned() + struct.pack(">I", len(self.signature)) + self.signature

    def _unsigned(self) -> bytes:
        return (
            struct.pack(">HI", _CODEC_VERSION, _STATELESS)
            + self.parent_id
            + struct.pack(">qQ", self.timestamp, self.p_chain_height)
            + struct.pack(">I", len(self.certificate))
            + self.certificate
            + struct.pack(">I", len(self.inner))
            + self.inner
        )

    @property
    def id(self) -> bytes:
        """sha256 of the block up to, not including, the signature's length prefix."""
        return hashlib.sha256(self._unsigned()).digest()
