"""Storage: schema, database (SQLite WAL or PostgreSQL) and every SQL statement."""
