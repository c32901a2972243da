"""Routes as data, resolved once per request by one table: every HTTP app of ours routes so."""
