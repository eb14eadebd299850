"""The web table: FastAPI server, storage, rooms and views (``docs/web-api.md``).

Everything web lives here so the engine imports nothing heavy; install with the ``web`` extra.
"""
