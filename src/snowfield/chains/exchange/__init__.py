"""The X-Chain (AVM): assets, UTXOs, its DAG of vertices until linearization, then blocks."""
