"""``metrogames daily london|paris``: today's daily challenge, played against a web table server.

Contract: ``docs/web-api.md``, "The daily challenge". The server is authoritative: it decides
what is legal and what anything scores, and a refused move prints its reason. To draw the game
the client keeps a local mirror through the protocol only: after each step it fetches the
room's public record (``GET /api/rooms/{room}/record``), replays it with
:func:`~metrogames.games.replay_record` and shows the player's view of that state with the
game's terminal renderer (the one ``metrogames play`` uses). A typed move is read with
``string_to_action`` and sent in its JSON form (``action_to_json``).

With ``--account NAME`` the player signs in to an account (``POST /api/sessions``, the
password from ``METROGAMES_PASSWORD`` or asked without echo) and plays the account's ranked
attempt, on the accounts' leaderboard: the session cookie lives in this run's HTTP client only
(nothing is written to disk) and the session is ended on the server when the run ends
(``DELETE /api/sessions/current``); the daily start gives the account's seat a token for the
room. Without an account the player is anonymous, a guest (ranked on the day's guests list,
apart from the accounts' leaderboard): the first run asks for a display name, creates the player
(``POST /api/players``) and keeps its token in a JSON file (``var/player.json`` by default,
one entry per server: ``{"http://127.0.0.1:8000": {"player", "name", "token"}}``; paste a token
copied from the browser there to play as the same player). Today's game is started with
``POST /api/daily/{game}/{date}/start`` (a second run continues the game in progress; the
server's midnight rule is printed before it) and
played in its room with the player token as the seat token; at the end the result (score, rank,
percentile, rating band, the reference and expert bots' scores on the same deal) is printed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ValidationError
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from metrogames.cli.daily_answers import (
    Daily,
    DailyStart,
    Player,
    Record,
    Result,
    RoomView,
)
from metrogames.cli.hints import HINT_WORD, hints_from_json, hints_text
from metrogames.cli.lang import _, band_range, decimal, ntr, say, tr
from metrogames.cli.prompt import QuitGame, read_move, refusal_text
from metrogames.cli.render import Seats, TerminalRenderer, renderer_for
from metrogames.core.errors import MetrogamesError, NotationError, message_of
from metrogames.core.protocol import CHANCE, Action, JsonObject, JsonValue, State, is_object
from metrogames.games import daily_games, game_type, replay_record
from metrogames.i18n import N_, environment_language

_DIM = "#6b7280"
M = TypeVar("M", bound=BaseModel)

COMMANDS = N_(
    "Commands: moves (every legal move) · map (show the map again) · hint [MOVE] (the coach's\n"
    "best three moves; not in a ranked game) · help · quit (stop; the game stays open on the\n"
    "server until the day closes: run the command again to continue)"
)


class DailyError(Exception):
    """A failure to report on stderr with exit status ``code`` (1: server or token, 2: usage)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    def __reduce__(self) -> tuple[type[DailyError], tuple[str, int]]:
        return type(self), (self.message, self.code)


class RefusalError(DailyError):
    """A 4xx answer of the server: its ``error`` message and ``reason`` code."""

    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(f"{error} ({reason})")
        self.status = status
        self.error = error
        self.reason = reason

    def __reduce__(self) -> tuple[type[RefusalError], tuple[int, str, str]]:  # type: ignore[override]
        return type(self), (self.status, self.error, self.reason)


def check_server(url: str) -> str:
    """The server's base URL without a trailing slash.

    Raises:
        DailyError: (exit 2) not an ``http://`` or ``https://`` URL with a host.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise DailyError(
            tr("--server must be an http:// or https:// URL, not {url}", url=repr(url)), 2
        )
    return url.strip().rstrip("/")


# -- the token file ----------------------------------------------------------------------------
def load_players(path: Path) -> JsonObject:
    """The token file's players by server (empty when the file does not exist).

    Raises:
        DailyError: (exit 1) an unreadable file or one that is not a JSON object.
    """
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DailyError(
            tr("cannot read the token file {path}: {why}", path=path, why=exc)
        ) from None
    if not is_object(data):
        raise DailyError(tr("the token file {path} is not a JSON object", path=path))
    return data


def save_player(path: Path, server: str, player: JsonObject) -> None:
    """Keep ``player`` (``{"player", "name", "token"}``) for ``server`` in the token file
    (readable by its owner only).

    Raises:
        DailyError: (exit 1) the file cannot be written.
    """
    try:
        data = load_players(path)
    except DailyError:
        data = {}
    data[server] = player
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=1) + "\n")
        tmp.replace(path)
    except OSError as exc:
        raise DailyError(
            tr("cannot write the token file {path}: {why}", path=path, why=exc)
        ) from None


# -- HTTP ----------------------------------------------------------------------------------------
@dataclass
class Server:
    """The web table at ``base`` (an ``httpx.Client`` is made unless one is given)."""

    base: str
    http: httpx.Client | None = None
    token: str | None = None
    _own: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if self.http is None:
            self.http = httpx.Client(base_url=self.base, timeout=15.0)
            self._own = True

    def close(self) -> None:
        if self._own and self.http is not None:
            self.http.close()

    def call(
        self,
        method: str,
        path: str,
        body: JsonValue = None,
        *,
        auth: bool = True,
        token: str | None = None,
    ) -> JsonValue:
        """The decoded JSON answer, asked with ``token`` (default: :attr:`token`) as the
        bearer token unless ``auth`` is false (a session cookie, if any, goes along).

        Raises:
            RefusalError: a 4xx answer (its error and reason).
            DailyError: the server cannot be reached, or answers 5xx or not JSON.
        """
        assert self.http is not None
        headers = {"Accept-Language": environment_language()}  # the server's refusals in it
        bearer = (token or self.token) if auth else None
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        if method != "GET":  # the server refuses a change not said to be JSON, body or not
            headers["Content-Type"] = "application/json"
        try:
            res = self.http.request(method, self.base + path, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise DailyError(
                tr("cannot reach the server at {url}: {why}", url=self.base, why=exc)
            ) from None
        try:
            data: JsonValue = res.json() if res.content else None
        except ValueError:
            data = None
        if 400 <= res.status_code < 500:
            error = data.get("error") if is_object(data) else None
            reason = data.get("reason") if is_object(data) else None
            raise RefusalError(
                res.status_code, str(error or res.reason_phrase), str(reason or "error")
            )
        if res.status_code >= 300 or data is None:
            raise DailyError(
                tr(
                    "the server at {url} answered {status} to {method} {path}",
                    url=self.base,
                    status=res.status_code,
                    method=method,
                    path=path,
                )
                + ("" if data is None else f": {data}")
            )
        return data

    def answer(
        self,
        model: type[M],
        method: str,
        path: str,
        body: JsonValue = None,
        *,
        auth: bool = True,
        token: str | None = None,
    ) -> M:
        """:meth:`call`'s answer read as ``model`` (:mod:`.daily_answers`).

        Raises:
            RefusalError, DailyError: as :meth:`call`; DailyError also for an answer that is
                not such a ``model`` (the fields at fault named).
        """
        return self.checked(
            model, self.call(method, path, body, auth=auth, token=token), method, path
        )

    def checked(self, model: type[M], data: JsonValue, method: str, path: str) -> M:
        """``data``, the answer to ``method path``, read as ``model``.

        Raises:
            DailyError: ``data`` is not such a ``model`` (the fields at fault named).
        """
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            faults = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'the answer'}: {e['msg']}" for e in exc.errors()
            )
            raise DailyError(
                tr(
                    "the server at {url} answered {method} {path} with something else than "
                    "the web API's answer: {why}",
                    url=self.base,
                    method=method,
                    path=path,
                    why=faults,
                )
            ) from None


# -- the end ----------------------------------------------------------------------------------
def result_lines(result: Result) -> list[Text]:
    """The result of ``GET .../result`` as printed lines."""
    out = [Text(tr("Score: {score}", score=result.score), style="bold green")]
    # rank and percentile are figures of one list, the player's, and each names it
    among = " " + (
        _("(guests' list)") if result.board == "guests" else _("(accounts' leaderboard)")
    )
    if result.rank is not None:
        rank = tr("Rank: {rank} of {of}", rank=result.rank, of=result.of)
        out.append(Text(rank + among, style="bold"))
    else:
        out.append(
            Text(
                tr(
                    "Rank: not ranked (not shared or practice) · {of} players ranked",
                    of=result.of,
                )
                + among
            )
        )
    if result.percentile is not None:
        p = result.percentile
        shown = decimal(p, "0.0" if p < 1 or p > 99 else "0")
        out.append(Text(tr("Percentile: {shown}", shown=shown) + among))
    rating = result.rating
    if rating is not None:
        band = tr("band {band} ({range})", band=rating.band, range=band_range(rating.model_dump()))
        text = tr("Solo rating: {score}", score=band)
        if rating.phrase:
            text += f": “{_(rating.phrase)}”"
        out.append(Text(text, style="bold"))
    for key, bot in (("bot", result.bot), ("expert", result.expert)):
        if bot is None:
            continue
        name = bot.name or key
        if bot.score is None:
            still = tr("The {name} bot is still playing the deal: ask again later.", name=name)
            out.append(Text(still, style=_DIM))
            continue
        diff = result.score - bot.score
        verdict = (
            ntr("you beat it by {n} point", "you beat it by {n} points", diff)
            if diff > 0
            else ntr("it beat you by {n} point", "it beat you by {n} points", -diff)
            if diff
            else _("a tie")
        )
        out.append(
            Text(
                tr(
                    "The {name} bot scored {score} on the same deal: {verdict}",
                    name=name,
                    score=bot.score,
                    verdict=verdict,
                )
            )
        )
    return out


# -- the session -------------------------------------------------------------------------------
class DailySession:
    """One run of ``metrogames daily``: the player, today's game, the turns, the result."""

    def __init__(
        self,
        game: str,
        server: Server,
        token_file: Path,
        console: Console,
        input_fn: Callable[[str], str],
        *,
        share: bool = True,
        name: str | None = None,
        account: str | None = None,
        password: Callable[[str], str] | None = None,
        poll: float = 0.25,
    ) -> None:
        self.game = game
        self.server = server
        self.token_file = token_file
        self.console = console
        self.input_fn = input_fn
        self.share = share
        self.name = name
        self.account = account
        self.password = password
        self.poll = poll
        self.kind = game_type(game)
        self.renderer: TerminalRenderer = renderer_for(self.kind)
        self.player: JsonObject = {}
        self.room_token: str | None = None
        """The bearer token of the room's calls: the player token of a guest, the seat token
        the daily start gave an account."""
        self.mirror: State[Action] | None = None
        self.mirror_step = -1
        self.seats = Seats((), ())

    def ask(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except (EOFError, KeyboardInterrupt):
            raise QuitGame from None

    # -- the player ------------------------------------------------------------------------
    def sign_in(self) -> None:
        """Sign in to the account, or use the token file's player for this server, or create
        one (asking for a name)."""
        if self.account is not None:
            self.sign_in_account(self.account)
            return
        entry = load_players(self.token_file).get(self.server.base)
        token = entry.get("token") if is_object(entry) else None
        if isinstance(token, str):
            self.server.token = token
            try:
                me = self.server.answer(Player, "GET", "/api/players/me")
            except RefusalError as exc:
                if exc.reason == "bad-token" or exc.status in (401, 403):
                    raise DailyError(
                        tr(
                            "the server at {url} does not accept the player token in {file} "
                            "({reason}); fix or delete that entry",
                            url=self.server.base,
                            file=self.token_file,
                            reason=exc.reason,
                        )
                    ) from None
                raise
            self.player = {"player": me.player, "name": me.name, "token": token}
            streak = me.streak
            self.console.print(
                Text(
                    tr("Playing as {name}", name=me.name)
                    + (" · " + ntr("streak {n} day", "streak {n} days", streak) if streak else "")
                )
            )
            return
        name = (self.name or "").strip()
        while not name:
            name = self.ask(_("Your display name for the daily challenge: ")).strip()
        res = self.server.answer(Player, "POST", "/api/players", {"name": name}, auth=False)
        self.player = {"player": res.player, "name": res.name, "token": res.token}
        self.server.token = res.token
        save_player(self.token_file, self.server.base, self.player)
        self.console.print(
            Text(
                tr(
                    "Welcome, {name}. Your player token is kept in {file} "
                    "(copy it to play on another device).",
                    name=res.name,
                    file=self.token_file,
                ),
                style="bold",
            )
        )

    def sign_in_account(self, name: str) -> None:
        """Start a session of account ``name`` (its cookie stays in the HTTP client).

        Raises:
            DailyError: (exit 1) the server refuses the name and password.
        """
        secret = self.password(tr("Password for {name}: ", name=name)) if self.password else ""
        try:
            res = self.server.answer(
                Player, "POST", "/api/sessions", {"name": name, "password": secret}, auth=False
            )
        except RefusalError as exc:
            why = f"{exc.error} ({exc.reason})"
            raise DailyError(
                tr(
                    "the server at {url} refused the sign-in of account {name}: {why}",
                    url=self.server.base,
                    name=repr(name),
                    why=why,
                )
            ) from None
        self.player = {"account": res.account, "player": res.player, "name": res.name}
        self.console.print(Text(tr("Signed in as {name} (account)", name=res.name), style="bold"))

    def sign_out(self) -> None:
        """End the account's session on the server (best effort: it expires anyway)."""
        if self.account is None or "account" not in self.player:
            return
        try:
            self.server.call("DELETE", "/api/sessions/current", auth=False)
        except DailyError:
            self.console.print(Text(_("Could not end the session on the server."), style=_DIM))

    # -- the game ----------------------------------------------------------------------------
    def run(self) -> JsonObject | None:
        """Play today's game to its end (or until the player stops); the result, or ``None``."""
        try:
            daily = self.server.answer(Daily, "GET", "/api/daily", auth=False)
        except RefusalError as exc:
            if exc.status != 404:
                raise
            raise DailyError(
                tr("the server at {url} has no daily challenge", url=self.server.base)
            ) from None
        date = daily.date
        if self.game not in [g.game for g in daily.games]:
            raise DailyError(tr("the server has no daily {game} challenge", game=self.game), 2)
        self.sign_in()
        left = max(0, int(daily.closes_at - time.time()))
        self.console.print(
            Rule(
                tr("Daily challenge · {title} · {date} (UTC)", title=self.kind.title, date=date),
                style="bold",
            )
        )
        self.console.print(
            Text(
                tr(
                    "The day closes in {hours} h {minutes} min.",
                    hours=left // 3600,
                    minutes=format(left % 3600 // 60, "02d"),
                ),
                style=_DIM,
            )
        )
        if daily.midnight_rule:  # the server's one rule, shown before a ranked start
            self.console.print(Text(daily.midnight_rule, style=_DIM))
        try:
            start = self.server.answer(
                DailyStart, "POST", f"/api/daily/{self.game}/{date}/start", {"share": self.share}
            )
        except RefusalError as exc:
            if exc.reason != "attempt-used":
                raise
            self.console.print(
                Text(
                    tr(
                        "You have played today's {title} challenge: one ranked attempt per day. "
                        "Your result:",
                        title=self.kind.title,
                    ),
                    style="bold #ffd23f",
                )
            )
            try:
                return self.show_result(date)
            except RefusalError:  # the attempt was a claimed guest's: the server said why
                self.console.print(Text(exc.error, style=_DIM))
                return None
        room = start.room
        self.room_token = start.token or self.server.token
        self.console.print(
            Text(
                (_("Ranked attempt") if start.ranked else _("Practice (not ranked)"))
                + " · "
                + tr("room {room}", room=room)
                + ("" if self.share else " · " + _("not shared on the leaderboard")),
                style=_DIM,
            )
        )
        self.console.print(Text(_("Type help for the notation, quit to stop."), style=_DIM))
        try:
            state = self.play(room)
        except QuitGame:
            self.console.print(
                Text(
                    _(
                        "Stopped. Your game stays open until the day closes: run the same command "
                        "to continue it."
                    ),
                    style="bold #ffd23f",
                )
            )
            return None
        self.console.print(self.renderer.game_over(state, self.seats))
        return self.show_result(date)

    def view(self, room: str) -> RoomView:
        return self.server.answer(RoomView, "GET", f"/api/rooms/{room}/view", token=self.room_token)

    def play(self, room: str) -> State[Action]:
        """Play the room's game to its end; the final state (the local mirror)."""
        view = self.view(room)
        shown_step = -1
        while view.status != "finished":
            if view.status != "playing" or not view.legal or view.you is None:
                time.sleep(self.poll)
                view = self.view(room)
                continue
            state = self.sync(room, view)
            if view.step != shown_step:
                seen = state.view(view.you)
                width = self.console.width
                self.console.print(
                    self.renderer.turn_screen(seen, view.you, self.seats, width=width)
                )
                shown_step = view.step
            view = self.turn(room, view)
        return self.sync(room, view)

    def sync(self, room: str, view: RoomView) -> State[Action]:
        """The local mirror of the room at ``view``'s step: its public record replayed. The
        moves, round scores and routes since the last mirror are announced.

        Raises:
            DailyError: the record does not replay here.
        """
        old = self.mirror
        if old is not None and self.mirror_step == view.step:
            return old
        record = self.server.call("GET", f"/api/rooms/{room}/record", token=self.room_token)
        try:
            players = Record.model_validate(record).players
            state = replay_record(record)
        except (MetrogamesError, ValidationError) as exc:
            why = say(message_of(exc)) if isinstance(exc, MetrogamesError) else str(exc)
            raise DailyError(
                tr("the record of room {room} does not replay here: {why}", room=room, why=why)
            ) from None
        self.seats = Seats(tuple(players), () if view.you is None else (view.you,))
        if old is not None:
            moves = [(p, a) for p, a in state.history()[len(old.history()) :] if p != CHANCE]
            for item in self.renderer.announce(old.view(None), state.view(None), moves, self.seats):
                self.console.print(item)
        self.mirror, self.mirror_step = state, view.step
        return state

    def turn(self, room: str, view: RoomView) -> RoomView:
        """One move: the player's typed action sent until the server takes it."""
        assert self.mirror is not None and view.you is not None
        r = self.renderer
        seat = view.you
        seen = self.mirror.view(seat)
        forced = seen.game.pass_action
        if forced is not None and list(seen.legal_actions(seat)) == [forced]:  # shown on screen
            return self.send(room, view, seen.action_to_json(seat, forced)) or self.view(room)
        width = self.console.width
        commands = {
            "moves": lambda: r.moves(seen, seat),
            "map": lambda: r.turn_screen(seen, seat, self.seats, width=width),
        }
        help_text = f"{r.notation_help}\n{_(COMMANDS)}"

        def hint(rest: str) -> RenderableType:
            return self.hint(room, view, seen, seat, rest)

        while True:
            prompt = r.prompt(seen, seat, self.seats)
            text = read_move(
                self.input_fn, prompt, self.console, help_text, commands, {HINT_WORD: hint}
            )
            try:
                action = r.complete(seen, seat, seen.string_to_action(seat, text))
            except NotationError as exc:
                self.console.print(Text(f"✘ {refusal_text(exc)}", style="bold red"))
                continue
            sent = self.send(room, view, seen.action_to_json(seat, action))
            if sent is not None:
                return sent
            fresh = self.view(room)
            if fresh.step != view.step:
                return fresh

    def hint(
        self, room: str, view: RoomView, seen: State[Action], seat: int, rest: str
    ) -> RenderableType:
        """The server's hints for this turn (``hint [MOVE]``), or why there are none: the
        server refuses them in a ranked game."""
        body: JsonObject = {"step": view.step}
        path = f"/api/rooms/{room}/hint"
        try:
            if rest.strip():
                move = self.renderer.complete(seen, seat, seen.string_to_action(seat, rest))
                body["about"] = seen.action_to_json(seat, move)
            data = self.server.call("POST", path, body, token=self.room_token)
        except NotationError as exc:
            detail = refusal_text(exc)
            return Text(
                "✘ " + tr("no hint for that move: {detail}", detail=detail), style="bold red"
            )
        except RefusalError as exc:
            if exc.reason == "ranked-game":
                return Text(
                    "✘ "
                    + _(
                        "No hints in a ranked daily game: today's score must be yours alone "
                        "(past days' practice games have hints)."
                    ),
                    style="bold red",
                )
            if exc.reason == "bad-token":
                raise
            return Text("✘ " + tr("no hint: {detail}", detail=exc.error), style="bold red")
        try:
            if not is_object(data):
                raise TypeError("not an object")
            hints = hints_from_json(data)
        except (KeyError, TypeError, ValueError) as exc:
            why = f"{type(exc).__name__}: {exc}"
            raise DailyError(
                tr(
                    "the server at {url} answered {method} {path} with something else than "
                    "the web API's answer: {why}",
                    url=self.server.base,
                    method="POST",
                    path=path,
                    why=why,
                )
            ) from None
        return hints_text(hints, seen.num_players)

    def send(self, room: str, view: RoomView, action: JsonValue) -> RoomView | None:
        """The next view, or ``None`` when the server refused (its reason printed)."""
        try:
            data = self.server.answer(
                RoomView,
                "POST",
                f"/api/rooms/{room}/actions",
                {"action": action, "step": view.step},
                token=self.room_token,
            )
        except RefusalError as exc:
            if exc.reason == "bad-token":
                raise
            shown = exc.error if exc.error.endswith(f"({exc.reason})") else str(exc)
            self.console.print(Text("✘ " + tr("refused: {detail}", detail=shown), style="bold red"))
            again = tr("Type a legal move, {words}, help or quit.", words="moves")
            self.console.print(Text(again, style=_DIM))
            return None
        return data

    # -- the end -----------------------------------------------------------------------------
    def show_result(self, date: str) -> JsonObject:
        path = f"/api/daily/{self.game}/{date}/result"
        result = self.server.call("GET", path)
        shown = self.server.checked(Result, result, "GET", path)
        assert is_object(result)  # a Result is an object
        self.console.print(
            Rule(
                tr("{title} · daily {date}: result", title=self.kind.title, date=date), style="bold"
            )
        )
        board = f"{self.server.base}/#/daily/{self.game}/{date}"
        self.console.print(Group(*result_lines(shown)))
        self.console.print(
            Text(
                tr("Leaderboard: {url}", url=board),
                style=_DIM,
            )
        )
        return result


def play_daily(
    game: str,
    server: str,
    token_file: Path,
    console: Console,
    input_fn: Callable[[str], str],
    *,
    share: bool = False,
    name: str | None = None,
    account: str | None = None,
    password: Callable[[str], str] | None = None,
    http: httpx.Client | None = None,
) -> JsonObject | None:
    """Play today's ``game`` challenge on ``server``; the result (``None`` when stopped).
    With ``account``, as that account (``password(prompt)`` gives its password), its session
    ended at the end; else as the token file's guest.

    Raises:
        DailyError: a bad game or URL, ``name`` with ``account`` (code 2), an unreachable
            server, a refused token or sign-in or another refusal (code 1).
    """
    games = daily_games()  # the built-in London and Paris, and any plug-in with one
    if game not in games:
        raise DailyError(
            tr(
                "the daily challenge is {first} or {second}, not {game}",
                first=", ".join(games[:-1]),
                second=games[-1],
                game=repr(game),
            ),
            2,
        )
    if account is not None and name is not None:
        raise DailyError(
            tr("--name names a new guest player; an account plays under its own name"), 2
        )
    base = check_server(server)
    conn = Server(base, http)
    session = DailySession(
        game,
        conn,
        token_file,
        console,
        input_fn,
        share=share,
        name=name,
        account=account,
        password=password,
    )
    try:
        return session.run()
    finally:
        session.sign_out()
        conn.close()


__all__ = ["DailyError", "play_daily"]
