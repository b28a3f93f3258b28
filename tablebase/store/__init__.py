"""Storage: the SQLite schema, opening databases, migrations and bulk writes."""
