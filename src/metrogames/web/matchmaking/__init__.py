"""Play now (``docs/web-api.md``, "Play now"): a player asks for a game, a player count and a
clock kind and is seated with the nearest-rated players waiting for the same, as soon as
enough are there. The matching is pure (:mod:`.matching`); the queue lives in memory in a
single process and in Redis with several workers (:mod:`.queue`, :mod:`.redisqueue`); the
service ties it to the rooms (:mod:`.service`)."""
