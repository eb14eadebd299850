"""What every part of the web table runs on: settings, database, Redis, metrics, limits, logs, heavy jobs."""
