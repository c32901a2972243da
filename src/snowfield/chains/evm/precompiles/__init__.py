"""Stateful precompiles of the custom EVM, registered by address and config key."""
