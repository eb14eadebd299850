"""The games the web table serves and their drawing data, from the registry's hooks.

Contract: ``docs/web-api.md``, "Boards". The client draws only from these documents, which each
game builds from its own data files (``GameType.board_json``), so the picture and the rules
never disagree. Nothing here knows a game: a game registered with
:func:`metrogames.games.register_game` is served like the built-in ones.
"""

from __future__ import annotations

from typing import Any

from metrogames.bots.base import bot_codes
from metrogames.bots.levels import LEVELS, level_algorithm
from metrogames.core.errors import OptionError
from metrogames.games import game_names, game_options_json, game_presets_json, game_type


def bot_label(code: str, game: str) -> str:
    """A bot code as the seat menu shows it in ``game``: a level with the algorithm it plays
    there (``Medium — greedy``, ``Hard — Monte Carlo (1000 playouts)``), an algorithm as such
    (``Algorithm: random``)."""
    if code in LEVELS:
        played = str(level_algorithm(code, game)).replace("montecarlo", "Monte Carlo")
        return f"{code.capitalize()} — {played}"
    return f"Algorithm: {code.replace('montecarlo', 'Monte Carlo')}"


def games_list() -> list[dict[str, Any]]:
    """``GET /api/games``: per game ``{"game", "title", "players": [min, max], "options":
    {name: {"default", "values": [...], "choose"?: {...}}}, "presets": {name: {"title",
    "options", "note"}}, "bots": [codes], "bot_labels": {code: label}}`` (bots: the levels
    first, weakest to strongest, then the algorithms)."""
    out: list[dict[str, Any]] = []
    for name in game_names():
        kind = game_type(name)
        out.append(
            {
                "game": name,
                "title": kind.title,
                "players": [kind.players.start, kind.players.stop - 1],
                "options": game_options_json(kind),
                "presets": game_presets_json(kind),
                "bots": bot_codes(),
                "bot_labels": {code: bot_label(code, name) for code in bot_codes()},
            }
        )
    return out


def board(game: str) -> dict[str, Any] | None:
    """``GET /api/games/{game}/board``: the drawing data of ``game`` (shapes in
    ``docs/web-api.md``, "Boards"), or ``None`` for an unknown game name."""
    try:
        kind = game_type(game)
    except OptionError:
        return None
    return dict(kind.board_json())
