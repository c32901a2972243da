"""Avalanche Warp Messaging formats: messages, signatures, payloads and the P-Chain's L1 messages."""
