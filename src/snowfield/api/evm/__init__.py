"""The data service's EVM operations: chains, contracts, address history, blocks (and, as they
land, balances, transactions, NFTs)."""
