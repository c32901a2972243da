"""Generic JSON-RPC 2.0: protocol objects, dispatcher, batch limits, the error-code table, a client."""
