"""Games from plug-ins: installed packages' entry points, and modules named at start.

Source: ``docs/design.md``, "Core protocol" (a new game plugs in without edits to bots, sim,
web or cli); ``docs/web-api.md``, "Plug-in games". A plug-in game is a
:class:`~metrogames.core.protocol.GameType` registered with
:func:`~metrogames.games.register_game`. Two ways bring one in:

* an installed package declares an entry point in the group ``metrogames.games`` (in its
  ``pyproject.toml``: ``[project.entry-points."metrogames.games"] go = "mygo.spec:GO"``); the
  registry loads every one the first time it is asked for the games (:func:`load_entry_points`);
* a program names modules at start (the web table: ``METROGAMES_GAMES=mygo.spec:GO,other``)
  and calls :func:`load_plugins` with them.

A *target* is ``module`` (imported: its import registers its games, as the built-in games'
``spec`` modules do) or ``module:attribute`` (dotted attributes allowed), whose object is a
game — a pair ``(GameType, engine)``, the game's facts and its
:class:`~metrogames.core.capabilities.Engine` —, a sequence of them, or a callable taking no
argument that returns one of those (or ``None``, having registered its games itself).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from importlib.metadata import entry_points
from types import ModuleType

from metrogames.core.capabilities import Engine
from metrogames.core.errors import PluginError
from metrogames.core.protocol import GameType
from metrogames.games.known import register_game

GROUP = "metrogames.games"
"""The entry-point group of plug-in games."""


def load_plugins(targets: Iterable[str]) -> list[str]:
    """Import each target (``module`` or ``module:attribute``, blanks around it ignored, empty
    ones skipped) and register the games it gives.

    Returns:
        The names of the games registered from attributes, in order (a plain module's import
        registers its games itself: they are not listed).

    Raises:
        PluginError: a target that does not import, names no attribute of its module, or
            whose object is no game type, sequence of them or callable giving one (the message
            names the target).
    """
    names: list[str] = []
    for raw in targets:
        target = raw.strip()
        if target:
            where = f"plug-in game {target!r}"
            names += _register(_resolve(target, where), where)
    return names


def load_entry_points(group: str = GROUP) -> list[str]:
    """Load every entry point of ``group`` of the installed packages and register its games
    (the registry does it once, when first asked for the games).

    Raises:
        PluginError: an entry point that does not load (the message names it).
    """
    names: list[str] = []
    for point in entry_points(group=group):
        where = f"entry point {point.name!r} ({point.value}) of {group}"
        try:
            loaded = point.load()
        except Exception as exc:
            raise PluginError(f"{where}: cannot load it: {exc}") from exc
        names += _register(loaded, where)
    return names


def _resolve(target: str, where: str) -> object:
    module_name, _, attribute = target.partition(":")
    try:
        found: object = importlib.import_module(module_name)
    except Exception as exc:
        raise PluginError(f"{where}: cannot import module {module_name!r}: {exc}") from exc
    for part in filter(None, attribute.split(".")):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise PluginError(f"{where}: {module_name} has no attribute {attribute!r}") from None
    return found


def _register(found: object, where: str) -> list[str]:
    if isinstance(found, ModuleType):
        return []  # imported: it registered its games
    if callable(found):
        try:
            found = found()
        except Exception as exc:
            raise PluginError(f"{where}: calling it failed: {exc}") from exc
    if found is None:
        return []
    games = [found] if _is_game(found) else found
    if not isinstance(games, list | tuple) or not all(_is_game(g) for g in games):
        shown = type(found).__name__
        raise PluginError(
            f"{where}: gives a {shown}, not a game (a pair of a GameType and its engine) "
            "or a sequence of them"
        )
    for kind, engine in games:
        register_game(kind, engine)
    return [kind.name for kind, _ in games]


def _is_game(found: object) -> bool:
    """Whether ``found`` is a pair of a ``GameType`` and an engine."""
    return (
        isinstance(found, tuple)
        and len(found) == 2
        and isinstance(found[0], GameType)
        and isinstance(found[1], Engine)
    )
