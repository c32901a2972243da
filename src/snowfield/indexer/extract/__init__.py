"""Pure extraction steps: node JSON in, store rows out; no I/O."""
