"""Alembic migrations of the tablebase schema (shipped with the package)."""
