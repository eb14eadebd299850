"""Next Station (London, Paris): one rules engine, the cities are data.

A city's map, deck and tables come from its data file (:mod:`.citymap`); one player's map is
:mod:`.board`; a game and its states are :mod:`.state`, scored by :mod:`.scoring`. Code above
``games/`` reaches this engine only through the registry (:mod:`metrogames.games`) and the
protocol (:mod:`metrogames.core.protocol`); its registry entries are in :mod:`.spec`.
"""
