"""Open data: the monthly exports of every finished online and daily game (``docs/exports.md``).

:mod:`.fileformat` writes and reads an export file (JSON lines, zstd, a checksum line at its
end) and needs nothing of the server; :mod:`.months` names the months; :mod:`.pseudonyms`
makes the stable pseudonyms that stand for accounts; :mod:`.games` reads the stored games of a
month in batches and writes each one's line.
"""
