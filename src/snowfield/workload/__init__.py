"""Demo traffic for a devnet and the demo contracts it deploys."""
