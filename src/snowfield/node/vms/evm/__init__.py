"""The EVM: the C-Chain (coreth) and the custom EVM's L1 chains (subnet-evm), their runtime and
JSON-RPC methods."""
