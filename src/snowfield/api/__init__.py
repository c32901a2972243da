"""The data service: chains, address activity, blocks and contracts over HTTP JSON."""
