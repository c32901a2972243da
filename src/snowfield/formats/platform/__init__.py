"""The P-Chain's (platformvm) binary formats: outputs, inputs, txs, blocks; pure encode/decode.

Modules: `types` (the type-id registry and the interface kinds), `secp256k1fx` and `stakeable`
(outputs, inputs, owners, credentials), `components` (UTXO ids, transferables, UTXOs, the BaseTx
body), `signer` (BLS proof of possession), `staking_txs`, `subnet_txs`, `transfer_txs`, `l1_txs`
(the unsigned txs, one dataclass per type id), `txs` (`Tx`: signed txs, ids, signing bytes) and
`blocks`. Values are frozen dataclasses; construction and decoding enforce the structural rules
avalanchego's syntactic checks hold them to (sorting, uniqueness, sizes) and raise InvalidParams.

Importing any module of this package registers every type of the platformvm codec, so decoding
never depends on which modules a caller happened to import.
"""

from snowfield.formats.platform import blocks, txs

__all__ = ["blocks", "txs"]
