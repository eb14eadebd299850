"""Replays: a record turned into spectator frames, one per step.

Contract: ``docs/web-api.md``, ``GET /api/rooms/{room}/replay`` and ``POST /api/replays`` →
``{"game", "players", "frames": [<spectator view>, ...]}``, and for a record of a custom map
(``docs/maps.md``: it carries its map) ``"board"``, the map's drawing data. The record is first replayed by the
engine (``metrogames.games.replay_record``), so an illegal record is refused with the engine's reason; the frames
then follow its action history from the first state. A finished game hides nothing, so frames
show every map as it is drawn. The HTTP routes build replays as heavy jobs
(:mod:`metrogames.web.infra.jobs`, ``replay``), never in the serving process, and keep those of
finished rooms.
"""

from __future__ import annotations

import json

from metrogames.core.capabilities import MapChecks
from metrogames.core.errors import IllegalActionError, MetrogamesError
from metrogames.core.protocol import JsonObject, JsonValue, is_object
from metrogames.games import game_engine, record_start, replay_record
from metrogames.web.errors import RoomError, bad_request
from metrogames.web.rooms.tables import Progress
from metrogames.web.rooms.views import Frame, Replay, SeatView, Status, build_view

MAX_FRAMES = 2000


def frames_of_record(data: JsonValue) -> Replay:
    """The replay of a record (already decoded JSON).

    Raises:
        RoomError: 400 ``bad-request`` for a record that does not parse, 400 with the engine's
            reason for its first illegal action.
    """
    if not is_object(data):
        raise bad_request("a record must be a JSON object")
    try:
        final = replay_record(data)
        first = record_start(data)
    except IllegalActionError as exc:
        raise RoomError(400, exc.reason, exc.as_message()) from None
    except (MetrogamesError, ValueError) as exc:
        raise bad_request(f"record: {exc}") from None
    history = final.history()
    if len(history) >= MAX_FRAMES:
        raise RoomError(413, "too-large", f"a replay has at most {MAX_FRAMES} steps")
    listed = data["players"]  # the record's reader took it: a list of names
    players = [name for name in listed if isinstance(name, str)] if isinstance(listed, list) else []
    if not isinstance(listed, list) or len(players) != len(listed):
        raise bad_request("record: players must be a list of names")
    seats: list[SeatView] = [
        {
            "seat": i,
            "name": name,
            "kind": "bot" if name.startswith("bot:") else "human",
            "connected": False,
        }
        for i, name in enumerate(players)
    ]
    game = final.game.name
    progress = Progress(first)

    def frame(status: Status) -> JsonObject:
        return build_view(
            Frame("", game, status, progress.step, seats), progress.state, None, reveal=True
        )

    frames = [frame("playing")]
    for player, action in history:
        progress.apply(player, action)
        frames.append(frame("finished" if progress.state.is_over() else "playing"))
    replay: Replay = {"game": game, "players": players, "frames": frames}
    engine = game_engine(game)
    if isinstance(engine, MapChecks) and is_object(data.get("map")):
        replay["board"] = engine.map_board_json(data["map"])  # checked by the replay above
    return replay


def replay_text(data: JsonValue) -> str:
    """:func:`frames_of_record` as JSON text (built in a job worker: a long record makes
    thousands of frames)."""
    return json.dumps(frames_of_record(data))
