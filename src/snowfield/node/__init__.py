"""The devnet node: owns chains, timers, indexes, health; serves the /ext/... APIs."""
