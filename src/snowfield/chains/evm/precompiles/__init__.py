"""Stateful precompiles of the custom EVM, listed by address and config key in `registry`."""
