"""The webhook delivery worker: it reads the store's outbox, signs each message and posts it,
retrying on the real service's schedule and keeping the delivery log."""
