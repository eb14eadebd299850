"""The abuser's requests (:mod:`abuse`): the hints, analyses, practice games and sign-ins at
their limits.

Each ``setup_*`` takes the :class:`abuse.Abuser`, sets up what its kind needs (raising
:class:`abuse.SetupError` when refused) and returns the coroutine function that runs the kind
until the abuser's deadline.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from abuse import Abuser, Answer, Run


async def setup_hints(ab: Abuser) -> Run:
    """A London solo room and a Metro room against a random bot, hinted in bursts at the
    position each starts at (hints are not kept: each one searches again)."""
    rooms = []
    for body in (
        {"game": "london", "mode": "solo", "seats": [{"name": "abuser"}]},
        {"game": "metro", "mode": "bots", "seats": [{"name": "abuser"}, {"bot": "random"}]},
    ):
        made = await ab.need("hints", "room", "POST", "/api/rooms", body)
        room, token = made["room"]["room"], made["tokens"]["0"]
        view = await ab.need("hints", "view", "GET", f"/api/rooms/{room}/view", token=token)
        rooms.append({"room": room, "token": token, "step": view["step"]})

    async def one(i: int) -> Answer | None:
        r = rooms[i % len(rooms)]
        path = f"/api/rooms/{r['room']}/hint"
        return await ab.call("hints", "hint", "POST", path, {"step": r["step"]}, r["token"])

    return lambda: ab.bursts(one, ab.cfg.hint_burst)


async def setup_analyses(ab: Abuser) -> Run:
    """Bursts of distinct finished London and Paris records, the last ``--analysis-drops`` of
    each burst sent whole and dropped unread."""
    games = ("london", "paris")
    await asyncio.to_thread(finished_record, "london", 1)  # imported, and it works

    async def one(i: int) -> Answer | None:
        seed = ab.rng.getrandbits(63)
        record = await asyncio.to_thread(finished_record, games[i % 2], seed)
        if i % ab.cfg.analysis_burst >= ab.cfg.analysis_burst - ab.cfg.analysis_drops:
            await drop_request(ab, "analyses", "/api/analyses", record)
            return None
        return await ab.call(
            "analyses", "analysis", "POST", "/api/analyses", record,
            timeout=ab.cfg.analysis_timeout,
        )  # fmt: skip

    return lambda: ab.bursts(one, ab.cfg.analysis_burst)


async def drop_request(ab: Abuser, kind: str, path: str, body: Any) -> None:
    """Send ``POST path`` with ``body`` whole and close the connection at once, unread."""
    data = orjson.dumps(body)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {ab.host}:{ab.port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    tally = ab.tallies[kind]
    tally.sent += 1
    try:
        async with asyncio.timeout(max(0.1, min(10.0, ab.left()))):
            _, writer = await ab.open_connection()
            writer.write(head.encode() + data)
            await writer.drain()
        writer.close()
        tally.answers["dropped"] += 1
    except (OSError, TimeoutError) as exc:
        tally.answers[f"drop failed {type(exc).__name__}"] += 1


async def setup_practice(ab: Abuser) -> Run:
    """A guest player starting a practice game of a different past day at a steady pace, each
    game played out and its result asked for (the day's expert game starts then)."""
    made = await ab.need("practice", "player", "POST", "/api/players", {"name": "abuser"})
    token = made["token"]
    today = datetime.now(UTC).date()
    first = ab.rng.randrange(1, 3000)  # days never asked before on a kept server

    async def practice(i: int) -> None:
        game = ("london", "paris")[i % 2]
        day = (today - timedelta(days=first + i)).isoformat()
        base = f"/api/daily/{game}/{day}"
        started = await ab.call(
            "practice", "start", "POST", f"{base}/start", {"share": False}, token
        )
        if started is None or started.status != 200:
            return
        if await play_out(ab, started.body["room"], token):
            result = await ab.call("practice", "result", "GET", f"{base}/result", token=token)
            if result is not None and result.status == 200:
                expert = (result.body.get("expert") or {}).get("score")
                ab.tallies["practice"].counts[
                    "expert-known" if expert is not None else "expert-pending"
                ] += 1

    async def run() -> None:
        games: list[asyncio.Task[None]] = []
        i = 0
        while ab.left() > 0:
            games.append(asyncio.create_task(practice(i)))
            i += 1
            await ab.sleep(60.0 / ab.cfg.practice_per_minute)
        await asyncio.gather(*games)

    return run


async def play_out(ab: Abuser, room: str, token: str) -> bool:
    """Play ``room`` to its end by the first legal action (a refused one waits for the
    ``Retry-After`` or is looked at again); whether it ended before the run stopped."""
    answer = await ab.call("practice", "view", "GET", f"/api/rooms/{room}/view", token=token)
    view = answer.body if answer is not None and answer.status == 200 else None
    while view is not None and view["status"] != "finished" and ab.left() > 0:
        body = {"action": view["legal"][0], "step": view["step"]}
        answer = await ab.call(
            "practice", "action", "POST", f"/api/rooms/{room}/actions", body, token
        )
        if answer is None:
            return False
        if answer.status == 200:
            view = answer.body
            continue
        await ab.sleep(answer.retry_after or 0.2)
        answer = await ab.call("practice", "view", "GET", f"/api/rooms/{room}/view", token=token)
        view = answer.body if answer is not None and answer.status == 200 else None
    if view is not None and view["status"] == "finished":
        ab.tallies["practice"].counts["games-finished"] += 1
        return True
    return False


async def setup_signins(ab: Abuser) -> Run:
    """An account made here, then bursts of sign-ins with wrong passwords for it."""
    name = f"abuser {secrets.token_hex(4)}"
    body = {"name": name, "password": secrets.token_urlsafe(18)}
    await ab.need("signins", "account", "POST", "/api/accounts", body)

    async def one(i: int) -> Answer | None:
        wrong = {"name": name, "password": f"not the password {i}"}
        return await ab.call("signins", "signin", "POST", "/api/sessions", wrong)

    return lambda: ab.bursts(one, ab.cfg.signin_burst)


def finished_record(game: str, seed: int) -> dict[str, Any]:
    """The record (``docs/notation.md``) of a finished solo game of ``game`` dealt with
    ``seed`` and played by uniformly random actions (the engine's playout), seed and decks
    written: what ``POST /api/analyses`` analyses."""
    from metrogames.core.rng import Rng  # the engine: imported by the analyses kind only
    from metrogames.games import load_game

    rules = load_game(game, players=1)
    state = rules.new_game(seed)
    state.random_playout([Rng(seed)])
    return dict(rules.to_record(state, ["abuser"], seed=seed, reveal=True))


SETUPS: dict[str, Callable[[Abuser], Awaitable[Run]]] = {
    "hints": setup_hints,
    "analyses": setup_analyses,
    "practice": setup_practice,
    "signins": setup_signins,
}
