"""The routes of the web table, one module per resource (docs/architecture.md, "Inside the web table")."""
