"""X-Chain (AVM) formats: txs, fx outputs/operations/credentials, UTXOs and blocks."""
