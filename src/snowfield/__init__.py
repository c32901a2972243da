"""snowfield: a self-hosted chain-data platform for Avalanche-style networks."""

__version__ = "0.1.0"
