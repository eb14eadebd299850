"""A new room's request checked, step by step (``POST /api/rooms``, ``docs/web-api.md``,
"Rooms"): its game, its seats (with the tokens handed to the creator) and its first state.

Each step raises :class:`~metrogames.web.errors.RoomError` ``bad-request`` naming the field
(``a room: game: …``, ``a room: seats: …``, ``a room: options: …``); nothing is stored before
every step passed (:meth:`~metrogames.web.rooms.service.RoomService.create`).
"""

from __future__ import annotations

import secrets

from metrogames.core.errors import MetrogamesError, message_of
from metrogames.core.protocol import Action, State
from metrogames.games import game_from_options, game_names, game_type
from metrogames.i18n import N_, msg
from metrogames.web.checks import bot_name, hash_token, new_token
from metrogames.web.errors import bad_request, shown
from metrogames.web.rooms.boards import map_game
from metrogames.web.rooms.requests import RoomRequest
from metrogames.web.rooms.tables import Seat
from metrogames.web.rooms.tutorial import tutorial_seed


def check_game(body: RoomRequest) -> None:
    """The request's game is served (a listed game, or the game of custom maps: its ``map``
    option is checked with the other options) and takes its number of seats.

    Raises:
        RoomError: ``bad-request``: an unknown game, or a seat count outside its players.
    """
    names = game_names()
    if body.game not in names and body.game != map_game():
        raise bad_request(
            f"a room: game: unknown game {shown(body.game)} (one of {', '.join(names)})"
        )
    kind = game_type(body.game)
    if len(body.seats) not in kind.players:
        low, high = kind.players[0], kind.players[-1]
        raise bad_request(f"a room: seats: {body.game} takes {low} to {high} seats")


def requested_seats(body: RoomRequest) -> tuple[list[Seat], dict[str, str]]:
    """The room's seats and the tokens handed to its creator (seat number as text → token):
    a bot's seat named after its level (two bots at one table have distinct names), an online
    room's other seats waiting for players (named by a placeholder), every other seat the
    creator's."""
    seats: list[Seat] = []
    tokens: dict[str, str] = {}
    for i, spec in enumerate(body.seats):
        if spec.bot is not None:
            name = bot_name(spec.name, spec.bot)
            taken = {s.name for s in seats}
            if name in taken:
                name = next(f"{name} {k}" for k in range(2, 99) if f"{name} {k}" not in taken)
            seats.append(Seat(i, name, False, spec.bot, None))
        elif body.mode == "online" and i > 0:
            seats.append(Seat(i, spec.name or "", True, None, None))
        else:
            token = tokens[str(i)] = new_token()
            seats.append(Seat(i, spec.name or f"Player {i + 1}", True, None, hash_token(token)))
    return seats, tokens


def check_seats(mode: str, seats: list[Seat]) -> None:
    """The seats fit the mode: a solo room has one human seat; a bots room one human seat and
    at least one bot; any room a human seat; an online room's creator seat 0.

    Raises:
        RoomError: ``bad-request`` naming the rule broken.
    """
    humans = [s for s in seats if s.human]
    if mode == "solo" and (len(seats) != 1 or len(humans) != 1):
        raise bad_request("a room: seats: a solo room has exactly one human seat")
    if mode == "bots" and (len(humans) != 1 or len(seats) < 2):
        raise bad_request("a room: seats: a bots room has one human seat and at least one bot")
    if not humans:
        raise bad_request("a room: seats: a room needs at least one human seat")
    if mode == "online" and not seats[0].human:
        raise bad_request("a room: seats: an online room's creator holds seat 0, a human seat")


def listed_until(body: RoomRequest, created: float, expiry: float) -> float | None:
    """Until when a new room is listed in the lobby (epoch seconds: ``created`` plus the
    ``lobby_expiry`` setting), or ``None`` for a room not listed (``docs/web-api.md``,
    "Lobby").

    Raises:
        RoomError: ``bad-request``: a listed room that is not an online room.
    """
    if not body.listed:
        return None
    if body.mode != "online":
        raise bad_request("a room: listed: only an online room is listed in the lobby")
    return created + expiry


def first_state(body: RoomRequest, players: int) -> tuple[int, State[Action]]:
    """The room's seed (random; a guided first game's: its fixed deal) and the game dealt
    from it with the request's options.

    Raises:
        RoomError: ``bad-request`` with the engine's message for options it refuses.
    """
    seed = tutorial_seed(body) if body.tutorial else secrets.randbits(63)
    try:
        return seed, game_from_options(body.game, players, dict(body.options or {})).new_game(seed)
    except (MetrogamesError, ValueError) as exc:
        raise bad_request(msg(N_("a room: options: {detail}"), detail=message_of(exc))) from None
