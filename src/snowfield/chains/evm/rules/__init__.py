"""EVM rule sets: what differs between the C-Chain and custom EVM chains, one type each."""
