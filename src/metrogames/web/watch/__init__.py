"""Now playing (``docs/web-api.md``, "Now playing"): the listed online games in progress, the
top-rated and the most recent, with their spectators — read from the database
(:mod:`.entries`), kept per worker and pushed live to event streams (:mod:`.hub`)."""
