"""A bot's solo game on a deal, and the links its lines drew: the measures of a map report
(``docs/maps.md``, "Reporting on a map"), shared by ``metrogames map report`` and the map
studio's report panel (``docs/web-api.md``, "Maps").

A game here is exactly the simulator's (``simulate --bots LEVEL --seed S``): the deal of
``seed``, one bot of ``level`` seeded with ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass

from metrogames.bots.base import make_bot
from metrogames.bots.play import play_bots
from metrogames.core.protocol import JsonObject, JsonValue, is_object
from metrogames.games import game_from_options


@dataclass(frozen=True)
class SoloGame:
    """One finished solo game: its score ``components`` (points, ``"total"`` among them) and
    its ``record`` (``docs/notation.md``, "Game record", the deal revealed)."""

    components: dict[str, int]
    record: JsonObject


def solo_game(game: str, options: JsonValue, level: str, seed: int) -> SoloGame:
    """The bot ``level`` (seeded ``seed``) playing ``game`` with ``options`` alone on the deal
    of ``seed``, to the end.

    Raises:
        OptionError: a bad game, options or bot level.
    """
    state = game_from_options(game, 1, options).new_game(seed)
    play_bots(state, [make_bot(level, seed)])
    record = state.game.to_record(state, [f"bot:{level}"], seed=seed, reveal=True)
    return SoloGame(state.score_components(0), record)


def drawn_links(record: JsonValue) -> list[frozenset[str]]:
    """The links a solo record's player drew, one per section (the two stations' names), from
    its turns' actions (``docs/notation.md``: an action's ``sections``)."""
    out: list[frozenset[str]] = []
    rounds = record.get("rounds", []) if is_object(record) else []
    for rnd in rounds if isinstance(rounds, list) else []:
        turns = rnd.get("turns", []) if is_object(rnd) else []
        for turn in turns if isinstance(turns, list) else []:
            for action in turn if isinstance(turn, list) else []:
                sections = action.get("sections", []) if is_object(action) else []
                sections = sections if isinstance(sections, list) else []
                out += [frozenset(map(str, s)) for s in sections if isinstance(s, list)]
    return out
