"""Generic JSON-RPC 2.0: dispatcher, batch limits, the error-code table, a client."""
