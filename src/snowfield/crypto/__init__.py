"""Hashing, secp256k1 keys and signing, BLS keys and signatures."""
