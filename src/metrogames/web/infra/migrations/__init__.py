"""Alembic migrations of the web tables (applied at server start by :func:`..db.migrate`)."""
