"""Metro game records and deal records: writing them.

Format: ``docs/notation.md``, "Game record" (Metro). Reading and replaying them:
:mod:`.record`. This module knows the state only by its type, so the state's own
``to_record`` and ``deal_record`` use it directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from metrogames.core.errors import RecordError
from metrogames.core.protocol import CHANCE, HIDDEN, JsonObject, JsonValue
from metrogames.games.metro.actions import MetroAction, metro_action_to_json

if TYPE_CHECKING:
    from metrogames.games.metro.state import MetroGame, MetroState

FORMAT = "metrogames/1"
GAME = "metro"


def default_players(n: int) -> list[str]:
    """``["player 1", ..., "player n"]``: names for a record written without names."""
    return [f"player {i + 1}" for i in range(n)]


def metro_record(
    state: MetroState,
    players: Sequence[str] | None = None,
    *,
    include_seed: bool | None = None,
    reveal_pile: bool = False,
    meta: JsonObject | None = None,
) -> JsonObject:
    """The record of ``state``'s game so far (finished or in progress), as a JSON-ready dict.

    A record lists placements only, so in ``official-hand`` mode a state caught between a
    :data:`~.actions.DRAW` and its placement is written up to the last placement (the drawn
    tile stays listed in ``tiles``; a replay stops at the player's choice).

    Args:
        state: a full state, or a view whose history shows every draw (draw mode: the
            public record).
        players: one display name per seat (default ``player 1`` ...).
        include_seed: write ``seed`` (when the state was dealt from one). Default: only once the
            game is over — a record handed out in progress carries no seed (spec, "Chance").
        reveal_pile: list the whole known pile, not only the tiles drawn so far.
        meta: the free-form ``meta`` object (default ``{}``).

    Raises:
        ValueError: a state :func:`unwritable` refuses, or a wrong number of names.
    """
    n = state.game.players
    names = list(players) if players is not None else default_players(n)
    if len(names) != n or not all(isinstance(p, str) for p in names):
        raise ValueError(f"give {n} player names")
    problem = unwritable(state, reveal_pile)
    if problem:
        raise ValueError(problem)
    tiles: list[str] = []
    turns: list[JsonValue] = []
    for who, action in state.history():
        if who == CHANCE and isinstance(action, str):
            tiles.append(action)
        elif isinstance(action, MetroAction) and not action.is_draw:
            turns.append(metro_action_to_json(action))
    if reveal_pile:
        tiles.extend(state.known_pile())
    out: JsonObject = {"format": FORMAT, "game": GAME, "players": names}
    if include_seed is None:
        include_seed = state.is_over()
    if include_seed and state.seed is not None:
        out["seed"] = state.seed
    out["options"] = state.game.options.to_json()
    out["tiles"] = tiles
    out["turns"] = turns
    out["meta"] = dict(meta) if meta is not None else {}
    return out


def unwritable(state: MetroState, reveal_pile: bool = False) -> str:
    """Why ``state`` cannot be written as a record, or ``""``: a history starting at a
    snapshot (not at the deal), draws hidden from a view (hand modes) or a resampled state
    built on them, or ``reveal_pile`` on a view (it does not know the pile)."""
    if state.starts_at_snapshot:
        return (
            "a state read from a snapshot has no history from the deal: it cannot be "
            "written as a record"
        )
    if any(who == CHANCE and action == HIDDEN for who, action in state.history()):
        return (
            "the history hides tiles drawn into players' hands (a view or a resampled state "
            "of a hand-mode game): only the full game can be written as a record"
        )
    if reveal_pile and state.viewer is not None:
        return "a view does not know the pile: only the full game can reveal it"
    return ""


def game_record(
    game: MetroGame,
    state: MetroState,
    names: Sequence[str],
    *,
    seed: int | None = None,
    reveal: bool = False,
) -> JsonObject:
    """:meth:`MetroGame.to_record`: the record of ``state`` with ``seed`` written when given
    and the whole known pile when ``reveal``.

    Raises:
        RecordError: a state of another game, a state :func:`unwritable` refuses, or a seed
            whose pile does not start with the tiles drawn.
        ValueError: a wrong number of names, a seed outside ``0..2**64-1``.
    """
    if state.game != game:
        raise RecordError(f"not a state of this game ({game.players}-player Metro)")
    problem = unwritable(state, reveal)
    if problem:
        raise RecordError(problem)
    out = metro_record(state, names, include_seed=False, reveal_pile=reveal)
    if seed is None:
        return out
    pile = game.pile_for(seed)
    tiles = out["tiles"]
    drawn = len(tiles) if isinstance(tiles, list) else 0  # metro_record's list of tile codes
    if state.seed not in (None, seed) or tiles != pile[:drawn]:
        raise RecordError(f"seed {seed} is not this game's: its pile does not hold these tiles")
    head = {k: out.pop(k) for k in ("format", "game", "players")}
    return {**head, "seed": seed, **out}


def metro_deal_record(
    game: MetroGame, seed: int, players: Sequence[str] | None = None
) -> JsonObject:
    """A *deal record*: the seed's whole pile and no turns (for paired comparisons).

    Raises:
        ValueError: a bad seed or a wrong number of names.
    """
    names = list(players) if players is not None else default_players(game.players)
    if len(names) != game.players:
        raise ValueError(f"give {game.players} player names")
    return {
        "format": FORMAT,
        "game": GAME,
        "players": names,
        "seed": seed,
        "options": game.options.to_json(),
        "tiles": game.pile_for(seed),
        "meta": {},
    }
