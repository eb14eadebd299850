"""The guided first games' fixed deals (``docs/web-api.md``, "Rooms": ``"tutorial": true``).

A tutorial room is dealt from a seed fixed here, one per game that has a guided first game
(the client's step lists, ``static/tutorials.json``, are written for exactly these deals: their
cards, colour order and, in Metro, tiles). The seeds are public and are not daily deals (a
daily deal's seed is an HMAC of a server secret, ``daily_deal.py``); a client asks for the
tutorial deal with a boolean and can never name a seed.
"""

from __future__ import annotations

from metrogames.core.errors import MetrogamesError
from metrogames.core.protocol import Action, State
from metrogames.web.errors import bad_request
from metrogames.web.rooms.requests import RoomRequest

TUTORIAL_SEEDS: dict[str, int] = {
    "london": 20261130,
    "paris": 20261130,
    "metro": 20261130,
}
"""The fixed seed of each game's guided first game."""
TUTORIAL_BOT_OPENINGS: dict[str, tuple[str, ...]] = {"metro": ("adad B1",)}
"""The bot's first actions in a game's guided first game, in the game's notation: the step
texts are written for them (Metro's third step scores a route across the bot's first tile, B1),
so they are played as written, not left to the bot's dice; then the bot plays on its own."""


def tutorial_bot_move(
    game: str, seed: int, seat: int, view: State[Action]
) -> Action | None:
    """The scripted action of ``seat``'s bot in a guided first game (the room dealt from the
    tutorial's seed), while its opening lasts and the action is legal in ``view`` (the bot's
    own view); ``None`` otherwise (the bot decides)."""
    opening = TUTORIAL_BOT_OPENINGS.get(game, ())
    if seed != TUTORIAL_SEEDS.get(game) or not opening:
        return None
    done = sum(1 for player, _ in view.history() if player == seat)
    if done >= len(opening):
        return None
    try:
        action = view.string_to_action(seat, opening[done])
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
    if game not in TUTORIAL_SEEDS:
        raise bad_request(
            f"a room: tutorial: {game} has no guided first game "
            f"(one of {', '.join(sorted(TUTORIAL_SEEDS))})"
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
    return TUTORIAL_SEEDS[game]
