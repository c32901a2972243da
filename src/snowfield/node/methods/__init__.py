"""JSON-RPC methods of the node, one module per namespace."""
