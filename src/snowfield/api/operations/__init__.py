"""The data service's own operations: transaction exports, usage metrics and logs, health."""
