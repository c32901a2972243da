"""Pure encode/decode of Avalanche wire formats: ids, cb58, hex, bech32, codec, blocks."""
