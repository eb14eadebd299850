"""The room core: rooms' use cases, store, sync across workers, clocks and bots, views (docs/architecture.md, "Inside the web table")."""
