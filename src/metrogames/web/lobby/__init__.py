"""The lobby of open tables (``docs/web-api.md``, "Lobby"): the online rooms their hosts
listed, waiting for players — read from the database (:mod:`.entries`), kept per worker and
pushed live to event streams (:mod:`.hub`, :mod:`.stream`)."""
