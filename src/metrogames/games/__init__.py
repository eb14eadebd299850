"""The rules engines — Next Station (London, Paris) and Metro — and the registry that hands
them out. They know no bot, web or CLI.

Adapters use only the registry and the protocol (:mod:`metrogames.core.protocol`)::

    from metrogames.games import load_game

    game = load_game("metro", players=3, turn_mode="hand")
    state = game.new_game(seed=7)
"""

from metrogames.games.known import register_game, unregister_game
from metrogames.games.plugins import load_plugins
from metrogames.games.registry import (
    check_players,
    daily_games,
    game_engine,
    game_from_options,
    game_names,
    game_options_json,
    game_presets_json,
    game_type,
    load_game,
    preset_of,
    record_start,
    replay_record,
)

__all__ = [
    "check_players",
    "daily_games",
    "game_engine",
    "game_from_options",
    "game_names",
    "game_options_json",
    "game_presets_json",
    "game_type",
    "load_game",
    "load_plugins",
    "preset_of",
    "record_start",
    "register_game",
    "replay_record",
    "unregister_game",
]
