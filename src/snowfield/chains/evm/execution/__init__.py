"""EVM execution: the only package that imports the EVM library (py-evm) and its trie."""
