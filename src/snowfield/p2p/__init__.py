"""avalanchego's peer protocol: TLS identities, framing, handshake, peer lists, app requests;
used by the devnet's validators (they answer) and by the aggregator (it asks)."""
