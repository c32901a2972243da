"""JSON-RPC methods of an EVM chain, one module per namespace."""
