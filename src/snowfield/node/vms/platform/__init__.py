"""The P-Chain's VM (platformvm): its runtime, blocks and platform.* service."""
