"""The Webhooks API: subscriptions of API keys, their shared secret, and the delivery log."""
