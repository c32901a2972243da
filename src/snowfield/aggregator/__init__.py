"""Signature aggregation for Warp messages: the signing subnet's canonical validator set at a
P-Chain height, ACP-118 requests to every validator over the peer-to-peer network, each
signature verified before its weight counts, quorum (+ buffer), the bitset and the aggregate."""
