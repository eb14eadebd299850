"""The guided first games' rooms (``docs/web-api.md``, "Rooms": ``"tutorial": true``).

A tutorial room is dealt from the fixed seed of the game's guided first game
(``GameType.tutorial``: the game states it, and the client's step lists,
``static/tutorials.json``, are written for exactly that deal: its cards, colour order and, in
Metro, tiles). The seeds are public and are not daily deals (a daily deal's seed is an HMAC of
a server secret, :mod:`metrogames.web.daily.deal`); a client asks for the tutorial deal with a
boolean and can never name a seed.
"""

from __future__ import annotations

from metrogames.core.errors import MetrogamesError, OptionError
from metrogames.core.protocol import Action, State, Tutorial
from metrogames.games import game_names, game_type
from metrogames.web.errors import bad_request
from metrogames.web.rooms.requests import RoomRequest


def tutorial_of(game: str) -> Tutorial | None:
    """The guided first game of ``game`` (``None``: it has none, or ``game`` is unknown)."""
    try:
        return game_type(game).tutorial
    except OptionError:
        return None


def tutorial_bot_move(
    game: str, seed: int, seat: int, view: State[Action]
) -> Action | None:
    """The scripted action of ``seat``'s bot in a guided first game (the room dealt from the
    tutorial's seed), while its opening (``Tutorial.bot_opening``) lasts and the action is
    legal in ``view`` (the bot's own view); ``None`` otherwise (the bot decides)."""
    tutorial = tutorial_of(game)
    if tutorial is None or seed != tutorial.seed or not tutorial.bot_opening:
        return None
    done = sum(1 for player, _ in view.history() if player == seat)
    if done >= len(tutorial.bot_opening):
        return None
    try:
        action = view.string_to_action(seat, tutorial.bot_opening[done])
    except MetrogamesError:
        return None
    return action if view.is_legal(seat, action) else None


def tutorial_seed(body: RoomRequest) -> int:
    """The seed of the tutorial room asked for by ``body`` (``body.tutorial`` is true).

    A tutorial room is a ``solo`` room (Metro, which needs two players: a ``bots`` room) with
    one human seat, the game's default options and no turn clock.

    Raises:
        RoomError: 400 ``bad-request`` naming what does not fit (a game without a guided
            first game, options, a turn clock, another mode or seat list).
    """
    game = body.game
    tutorial = tutorial_of(game)
    if tutorial is None:
        guided = sorted(name for name in game_names() if tutorial_of(name) is not None)
        raise bad_request(
            f"a room: tutorial: {game} has no guided first game (one of {', '.join(guided)})"
        )
    if body.options:
        raise bad_request("a room: tutorial: a tutorial room takes no options")
    if body.turn_clock is not None:
        raise bad_request("a room: tutorial: a tutorial room has no turn clock")
    if body.mode not in ("solo", "bots"):
        raise bad_request("a room: tutorial: a tutorial room is a solo (or bots) room")
    humans = [s for s in body.seats if s.bot is None]
    if len(humans) != 1 or body.seats[0].bot is not None:
        raise bad_request("a room: tutorial: a tutorial room has one human seat, seat 0")
    return tutorial.seed
