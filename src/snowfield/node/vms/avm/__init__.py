"""The X-Chain's VM (avm): its runtime and avm.* service."""
