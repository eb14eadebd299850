"""The game registry: the one place that maps a game name to its rules.

Source: ``docs/design.md``, "Core protocol". Adapters (bots, sim, web, cli, envs) find games only
here: :func:`load_game` makes a :class:`~metrogames.core.protocol.Game` from a name and options,
:func:`game_type` gives the name's facts, :func:`game_engine` the object behind the name (an
:class:`~metrogames.core.capabilities.Engine`: games, records, and the capabilities it
provides), :func:`game_names` lists the names. The built-in games register themselves when
first asked for (their modules are imported lazily, so ``import metrogames.games`` stays
light); tests and plug-ins add games with :func:`register_game`. The installed plug-ins' games
(entry points of the group ``metrogames.games``: :mod:`.plugins`) are loaded the first time the
games are listed or an unknown name is asked for.
"""

from __future__ import annotations

import functools
import importlib

from metrogames.core.capabilities import Engine
from metrogames.core.errors import OptionError, RecordError
from metrogames.core.protocol import Action, Game, GameType, JsonObject, JsonValue, State
from metrogames.games.known import KNOWN
from metrogames.games.plugins import load_entry_points
from metrogames.i18n import N_, msg, plural

_BUILTIN: dict[str, str] = {
    "london": "metrogames.games.nextstation.spec",
    "paris": "metrogames.games.nextstation.spec",
    "metro": "metrogames.games.metro.spec",
}
"""Built-in game name -> the module whose import registers it."""
_UNLISTED: dict[str, str] = {"nextstation": "metrogames.games.nextstation.spec"}
"""Built-in games known by name only, not listed by :func:`game_names` (nor offered by the
web table): ``nextstation``, Next Station on a custom map (``docs/maps.md``)."""

@functools.cache
def _load_plugins() -> None:
    """Register the installed plug-ins' games, once (:func:`.plugins.load_entry_points`).

    Raises:
        PluginError: an entry point that does not load (raised again at each call).
    """
    load_entry_points()


def game_names(unlisted: bool = False) -> list[str]:
    """The names of every known game: the built-ins in their order (``london``, ``paris``,
    ``metro``), then games registered later (the installed plug-ins' among them); with
    ``unlisted``, the games known by name only last (``nextstation``: a custom map).

    Raises:
        PluginError: an installed plug-in's entry point that does not load.
    """
    _load_plugins()
    listed = [*_BUILTIN, *(n for n in KNOWN if n not in _BUILTIN and n not in _UNLISTED)]
    return [*listed, *_UNLISTED] if unlisted else listed


def game_type(name: object) -> GameType:
    """The :class:`GameType` (the facts) of ``name``.

    Raises:
        OptionError: an unknown game name (the message lists the known ones).
    """
    return _entry(name)[0]


def game_engine(name: object) -> Engine:
    """The :class:`~metrogames.core.capabilities.Engine` behind ``name``: it makes games and
    reads records, and is checked for engine capabilities (``isinstance(engine, Boards)``).

    Raises:
        OptionError: an unknown game name (the message lists the known ones).
    """
    return _entry(name)[1]


def daily_games() -> list[str]:
    """The names of the games with a daily challenge (``GameType.daily``), in
    :func:`game_names` order (``london``, ``paris``)."""
    return [name for name in game_names() if game_type(name).daily]


def _entry(name: object) -> tuple[GameType, Engine]:
    if isinstance(name, str):
        found = KNOWN.get(name)
        module = _BUILTIN.get(name) or _UNLISTED.get(name)
        if found is None and module is not None:
            importlib.import_module(module)
            found = KNOWN.get(name)
        if found is None:
            _load_plugins()
            found = KNOWN.get(name)
        if found is not None:
            return found
    shown = repr(name) if len(repr(name)) <= 40 else repr(name)[:37] + "..."
    raise OptionError(
        msg(
            N_("unknown game {name} (expected one of {known})"),
            name=shown,
            known=", ".join(game_names()),
        )
    )


def check_players(kind: GameType, players: object) -> int:
    """``players`` if it is a player count ``kind`` takes.

    Raises:
        OptionError: not an int, or out of range (the message gives the range).
    """
    low, high = kind.players.start, kind.players.stop - 1
    if isinstance(players, bool) or not isinstance(players, int) or players not in kind.players:
        raise OptionError(
            msg(
                N_("{game} takes {low} to {high} players, not {players}"),
                game=kind.name,
                low=low,
                high=high,
                players=repr(players)[:40],
            )
        )
    return players


def load_game(name: str, players: int | None = None, **options: JsonValue) -> Game[Action]:
    """The game ``name`` for ``players`` (default: the fewest the game takes) with
    ``options`` in their JSON form (``docs/notation.md``, "Options"), e.g.
    ``load_game("metro", players=3, turn_mode="hand")``.

    Raises:
        OptionError: an unknown game, a player count it does not take, an unknown option
            name or a bad value (the message names the option).
    """
    kind = game_type(name)
    count = kind.players.start if players is None else check_players(kind, players)
    unknown = sorted(set(options) - set(kind.options))
    if unknown:
        known = ", ".join(kind.options) or "—"
        raise OptionError(
            plural(
                "unknown option for {game}: {names} (known: {known})",
                "unknown options for {game}: {names} (known: {known})",
                len(unknown),
                game=kind.name,
                names=", ".join(unknown),
                known=known,
            )
        )
    return game_engine(kind.name).make(count, dict(options))


def game_from_options(name: object, players: object, options: object) -> Game[Action]:
    """:func:`load_game` for untrusted input (a request body, command-line flags): the
    options as one JSON object (``None`` for none).

    Raises:
        OptionError: as :func:`load_game`, and options that are not an object.
    """
    kind = game_type(name)
    if options is None:
        options = {}
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise OptionError(msg(N_("options must be a JSON object")))
    return load_game(kind.name, check_players(kind, players), **options)


def replay_record(data: object) -> State[Action]:
    """Replay a decoded game record to its last state.

    Raises:
        RecordError: not a record, or an unknown game.
        NotationError, IllegalActionError: from the game (the first bad item).
    """
    return _record_engine(data).replay(data)


def record_start(data: object) -> State[Action]:
    """The first state of a decoded game record (its deal, before any action).

    Raises:
        RecordError, NotationError: as :func:`replay_record`.
    """
    return _record_engine(data).record_start(data)


def _record_engine(data: object) -> Engine:
    if not isinstance(data, dict):
        raise RecordError("a record must be a JSON object")
    if "game" not in data:
        raise RecordError('a record needs "game"')
    try:
        return game_engine(data["game"])
    except OptionError as exc:
        raise RecordError(str(exc)) from None


def game_options_json(kind: GameType) -> JsonObject:
    """``{option: {"default", "values", "choose"?}}`` of ``kind`` (``GET /api/games``)."""
    return {name: spec.to_json() for name, spec in kind.options.items()}


def preset_of(kind: GameType, options: object) -> str | None:
    """The name of ``kind``'s preset whose every option value ``options`` (a game's
    ``options_json()``, all options given) has, the first such in ``kind.presets``; ``None``
    when no preset matches or ``options`` is not an object."""
    if not isinstance(options, dict):
        return None
    for name, preset in kind.presets.items():
        if all(options.get(key) == value for key, value in preset.options.items()):
            return name
    return None


def game_presets_json(kind: GameType) -> JsonObject:
    """``{name: {"title", "options", "note"}}`` of ``kind``'s presets (``GET /api/games``)."""
    return {name: preset.to_json() for name, preset in kind.presets.items()}
