"""The reference bot client: our own bots played through the public bot API only
(``metrogames bot run``; ``docs/web-api.md``, "Bot accounts").

It reads the bot's event stream (NDJSON over plain HTTP, the standard library's ``urllib``),
accepts each ``challenge`` for a game the bot declares (declines the others), and plays each
game it is seated in on a thread of its own: it reads the game stream, and whenever its seat
is to move it rebuilds the position the seat sees from the view's ``position`` (a position
snapshot, ``docs/notation.md``) with the game registry, asks the bot of ``level`` for a move
and posts it in the game's notation. A refused move (the turn moved on meanwhile) is logged
and the next view decides again.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import NotRequired, TypedDict, cast

from metrogames.bots.base import make_bot
from metrogames.core.protocol import JsonObject, JsonValue, is_object
from metrogames.games import game_from_options

log = logging.getLogger("metrogames.botclient")


class Invitation(TypedDict):
    """What the client reads of a challenge's invitation: its ``id`` and ``game``."""

    id: str
    game: str


class BotEvent(TypedDict):
    """What the client reads of the bot's event stream (``docs/web-api.md``, "Bot
    accounts"): the ``type``, a challenge's ``invitation``, a game's ``room``."""

    type: str
    invitation: NotRequired[Invitation]
    room: NotRequired[str]


class ShownView(TypedDict):
    """What the client reads of a game stream's view: ``status``, the seats ``to_move``, the
    ``step``."""

    status: str
    to_move: list[int]
    step: int


class Position(TypedDict):
    """The seat's position in a game stream's event: its ``seat``, the game, its player count
    and options, the position ``snapshot`` (``docs/notation.md``)."""

    seat: int
    game: str
    players: int
    options: JsonObject
    snapshot: str


class GameEvent(TypedDict):
    """A game stream's event: the seat's ``view`` and ``position``."""

    view: ShownView
    position: Position


class BotClient:
    """A bot of ``level`` on ``server`` (``http://host:port``) with its API ``token``;
    ``games``: stop after this many games (``None``: run until stopped)."""

    def __init__(self, server: str, token: str, level: str, games: int | None = None) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.level = level
        self.games = games
        self.started: set[str] = set()
        self.threads: list[threading.Thread] = []
        self.finished = 0
        make_bot(level)  # ValueError naming the known codes, before anything is asked

    def _request(self, method: str, path: str, body: object = None) -> urllib.request.Request:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.token}"}
        if method != "GET":
            headers["Content-Type"] = "application/json"
        return urllib.request.Request(self.server + path, data, headers, method=method)

    def call(self, method: str, path: str, body: object = None) -> JsonValue:
        """One API call; its JSON answer (``None`` for an empty one).

        Raises:
            urllib.error.HTTPError: a refusal (its body says why).
        """
        with urllib.request.urlopen(self._request(method, path, body), timeout=30) as answer:
            text = answer.read()
        return json.loads(text) if text else None

    def stream(self, path: str) -> Iterator[JsonObject]:
        """The events of an NDJSON stream (keep-alive lines skipped) until it ends."""
        with urllib.request.urlopen(self._request("GET", path), timeout=60) as answer:
            for raw in answer:
                if raw.strip():
                    yield json.loads(raw)

    def run(self) -> None:
        """Follow the event stream until ``games`` games have ended (or forever)."""
        account = self.call("GET", "/api/bot/account")
        games = account.get("games") if is_object(account) else None
        if not isinstance(games, list):
            raise ValueError(f"the server's bot account lists no games: {account!r}")
        declared = set(games)
        for data in self.stream("/api/bot/events"):
            event = cast(BotEvent, data)  # the API's event (a field missing: a KeyError)
            kind = event.get("type")
            if kind == "challenge":
                invitation = event["invitation"]
                answer = "accept" if invitation["game"] in declared else "decline"
                try:
                    self.call("POST", f"/api/bot/invitations/{invitation['id']}/{answer}", {})
                except urllib.error.HTTPError as exc:
                    log.warning("invitation %s: %s", invitation["id"], exc.read().decode())
            elif kind == "gameStart" and event["room"] not in self.started:
                self.started.add(event["room"])
                thread = threading.Thread(target=self.play, args=(event["room"],), daemon=True)
                thread.start()
                self.threads.append(thread)
            elif kind == "gameFinish":
                self.finished += 1
                if self.games is not None and self.finished >= self.games:
                    for thread in self.threads:
                        thread.join(60)
                    return

    def play(self, room: str) -> None:
        """Play ``room`` from its game stream until the game is over."""
        bot = make_bot(self.level, seed=int(time.time() * 1000) % 2**31)
        for data in self.stream(f"/api/bot/games/{room}/stream"):
            event = cast(GameEvent, data)  # the API's event (a field missing: a KeyError)
            view, position = event["view"], event["position"]
            if view["status"] == "finished":
                return
            seat = position["seat"]
            if view["status"] != "playing" or seat not in view["to_move"]:
                continue
            game = game_from_options(position["game"], position["players"], position["options"])
            state = game.from_snapshot(position["snapshot"])
            action = bot.decide(state, seat, state.legal_actions(seat))
            move = {"action": state.action_to_json(seat, action), "step": view["step"]}
            try:
                self.call("POST", f"/api/bot/games/{room}/move", move)
            except urllib.error.HTTPError as exc:
                log.warning("room %s: move refused: %s", room, exc.read().decode())
