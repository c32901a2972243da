"""Names for the primitive values that flow between packages."""

from __future__ import annotations

from typing import NewType

Address = NewType("Address", bytes)  # 20 bytes
Hash32 = NewType("Hash32", bytes)  # 32 bytes
BlockNumber = NewType("BlockNumber", int)
ChainId = NewType("ChainId", int)
