"""Avalanche Warp Messaging formats: messages, signatures, payloads, the P-Chain L1 messages."""
