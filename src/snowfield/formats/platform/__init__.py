"""The P-Chain's (platformvm) binary formats: outputs, inputs, txs, blocks; pure encode/decode."""
