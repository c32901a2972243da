"""The C-Chain's atomic txs (coreth's atomic codec): ImportTx / ExportTx, their ids, and the
block extra data that carries them; pure encode/decode.

Modules: `types` (the atomic codec's registry), `txs` (EVMInput/EVMOutput, the unsigned txs,
signed `AtomicTx`), `extdata` (a block's extra data: the batched list and its hash).
"""

from snowfield.formats.atomic import extdata, txs

__all__ = ["extdata", "txs"]
