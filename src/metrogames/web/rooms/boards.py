"""The games the web table serves and their drawing data, from the registry.

Contract: ``docs/web-api.md``, "Boards". The client draws only from these documents, which each
game builds from its own data files (its engine's ``board_json``: the ``Boards`` capability),
so the picture and the rules never disagree. Nothing here knows a game: a game registered with
:func:`metrogames.games.register_game` is served like the built-in ones.
"""

from __future__ import annotations

import hashlib
import json

from metrogames.bots.base import bot_codes
from metrogames.bots.levels import LEVELS, Algorithm, level_algorithm
from metrogames.core.capabilities import Boards, MapChecks
from metrogames.core.errors import DataError, OptionError
from metrogames.core.protocol import JsonObject, is_object
from metrogames.games import (
    game_engine,
    game_names,
    game_options_json,
    game_presets_json,
    game_type,
)
from metrogames.i18n import N_, Gettext, Message, join, plural


def bot_label(code: str, game: str, gettext: Gettext = N_) -> str:
    """A bot code as the seat menu shows it in ``game``: a level with the algorithm it plays
    there (``Medium — greedy``, ``Hard — Monte Carlo (1000 playouts)``), an algorithm as such
    (``Algorithm: random``). The figures in brackets are in the language of ``gettext``
    (English by default); the level and algorithm names stay English codes for the client to
    word."""
    if code in LEVELS:
        algorithm = level_algorithm(code, game)
        played = "Monte Carlo" if algorithm.code == "montecarlo" else algorithm.code
        figures = bot_figures(algorithm)
        if figures:
            played += f" ({join(figures).render(gettext)})"
        return f"{code.capitalize()} — {played}"
    return f"Algorithm: {code.replace('montecarlo', 'Monte Carlo')}"


def bot_figures(algorithm: Algorithm) -> list[Message]:
    """The settings of a level's algorithm a player may read (budgets, candidates, rounds)."""
    if algorithm.code == "heuristic":
        return [plural("{n} determinization", "{n} determinizations", algorithm.budget)]
    if algorithm.code == "lookahead":
        return [
            plural("{n} candidate", "{n} candidates", algorithm.width),
            plural("{n} round", "{n} rounds", algorithm.rounds),
            plural("{n} determinization", "{n} determinizations", algorithm.budget),
        ]
    if algorithm.code != "montecarlo":
        return []
    if algorithm.use_heuristic and algorithm.deep:
        return [plural("{n} deep game estimate", "{n} deep game estimates", algorithm.budget)]
    if algorithm.use_heuristic:
        return [plural("{n} game estimate", "{n} game estimates", algorithm.budget)]
    figures: list[Message] = [plural("{n} playout", "{n} playouts", algorithm.budget)]
    if algorithm.greedy_turns:
        figures.append(
            plural("{n} greedy turn first", "{n} greedy turns first", algorithm.greedy_turns)
        )
    return figures



def games_list(gettext: Gettext = N_) -> list[JsonObject]:
    """``GET /api/games``: per game ``{"game", "title", "family", "players": [min, max],
    "options": {name: {"default", "values": [...], "choose"?: {...}}}, "presets": {name:
    {"title", "options", "note"}}, "bots": [codes], "bot_labels": {code: label}}`` (family:
    ``GameType.family``, the game's name when it states none, as in a view; bots: the levels
    first, weakest to strongest, then the algorithms; the labels' figures in the language of
    ``gettext``)."""
    out: list[JsonObject] = []
    for name in game_names():
        kind = game_type(name)
        out.append(
            {
                "game": name,
                "title": kind.title,
                "family": kind.family or kind.name,
                "players": [kind.players.start, kind.players.stop - 1],
                "options": game_options_json(kind),
                "presets": game_presets_json(kind),
                "bots": bot_codes(),
                "bot_labels": {code: bot_label(code, name, gettext) for code in bot_codes()},
            }
        )
    return out


def board(game: str) -> JsonObject | None:
    """``GET /api/games/{game}/board``: the drawing data of ``game`` (shapes in
    ``docs/web-api.md``, "Boards"; ``{"game", "title"}`` for a game that gives none), or
    ``None`` for an unknown game name."""
    try:
        kind = game_type(game)
    except OptionError:
        return None
    engine = game_engine(kind.name)
    if not isinstance(engine, Boards):
        return {"game": kind.name, "title": kind.title}
    return dict(engine.board_json())


def map_game() -> str | None:
    """The game a custom map is played as: the first game, listed or known by name only,
    whose engine checks maps (``MapChecks``: ``nextstation``), or ``None``."""
    for name in game_names(unlisted=True):
        if isinstance(game_engine(name), MapChecks):
            return name
    return None


def map_key(data: object) -> str:
    """The ``mapcheck`` job key of a map: ``mapcheck:`` and the SHA-256 of its canonical JSON
    (the studio's check, a room's and a reloaded room's share it)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "mapcheck:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def room_map(game: str, options: JsonObject) -> JsonObject | None:
    """The custom map a room of ``game`` with ``options`` is played on (its ``map`` option,
    when ``game``'s engine checks maps: ``MapChecks``), else ``None``."""
    data = options.get("map")
    if game != map_game() or not is_object(data):
        return None
    return data


def room_board(game: str, options: JsonObject) -> JsonObject | None:
    """``GET /api/rooms/{room}/board``: the drawing data of a room's game with its options —
    a custom map's own (its ``map`` option, ``MapChecks``), any other game's :func:`board` —
    or ``None`` when the game or its map is unknown."""
    engine = game_engine(game) if game == map_game() else None
    if not isinstance(engine, MapChecks):
        return board(game)
    try:
        return dict(engine.map_board_json(options.get("map")))
    except DataError:
        return None
