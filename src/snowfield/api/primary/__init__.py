"""The data service's primary-network operations (P-Chain, X-Chain, atomic memory)."""
