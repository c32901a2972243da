"""The P-Chain's (platformvm) binary formats: outputs, inputs, txs, blocks; pure encode/decode.

Importing any module of this package registers every type of the platformvm codec, so decoding
never depends on which modules a caller happened to import.
"""

from snowfield.formats.platform import blocks, txs

__all__ = ["blocks", "txs"]
