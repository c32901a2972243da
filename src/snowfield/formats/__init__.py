"""Pure encode/decode of Avalanche wire formats: ids, cb58, hex, bech32, the linear codec, blocks."""
