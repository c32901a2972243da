"""The indexer: reads a node over JSON-RPC, extracts rows, writes them with checkpoints."""
