"""``metrogames daily london|paris``: today's daily challenge, played against a web table server.

Contract: ``docs/web-api.md``, "The daily challenge". The server is authoritative: this client
never decides what is legal or what anything scores. It shows the map of the view's line
sections (drawn with :func:`~metrogames.games.nextstation.sheet.draw_sheet` and the terminal
renderer), lists the view's ``legal`` moves, sends what the player types (the notation of
``docs/notation.md``, sent in its JSON form) and prints the server's reason when a move is
refused.

The player is anonymous: the first run asks for a display name, creates the player
(``POST /api/players``) and keeps its token in a JSON file (``var/player.json`` by default,
one entry per server: ``{"http://127.0.0.1:8000": {"player", "name", "token"}}``; paste a token
copied from the browser there to play as the same player). Today's game is started with
``POST /api/daily/{game}/{date}/start`` (a second run continues the game in progress) and
played in its room with the player token as the seat token; at the end the result (score, rank,
percentile, rating band, the greedy bot's score on the same deal) is printed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from metrogames.cli.prompt import QuitGame, read_move
from metrogames.cli.render import (
    MOVES_HELP,
    MapView,
    card_text,
    colour_text,
    map_legend,
    map_width,
    moves_text,
    panel_head,
    render_map,
    sheets_table,
)
from metrogames.core.errors import MetrogamesError, NotationError
from metrogames.games.nextstation.actions import (
    TurnAction,
    action_from_json,
    action_to_json,
    format_action,
    parse_action,
)
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import CityMap, load_city
from metrogames.games.nextstation.sheet import draw_sheet

DAILY_GAMES = ("london", "paris")
DEFAULT_SERVER = "http://127.0.0.1:8000"
DEFAULT_TOKEN_FILE = Path("var/player.json")
_DIM = "#6b7280"

HELP = (
    MOVES_HELP
    + "\nCommands: moves (every legal move) · map (show the map again) · help · quit (stop; the"
    + "\ngame stays open on the server until the day closes: run the command again to continue)"
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
        raise DailyError(f"--server must be an http:// or https:// URL, not {url!r}", 2)
    return url.strip().rstrip("/")


# -- the token file ----------------------------------------------------------------------------
def load_players(path: Path) -> dict[str, Any]:
    """The token file's players by server (empty when the file does not exist).

    Raises:
        DailyError: (exit 1) an unreadable file or one that is not a JSON object.
    """
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DailyError(f"cannot read the token file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise DailyError(f"the token file {path} is not a JSON object")
    return data


def save_player(path: Path, server: str, player: dict[str, Any]) -> None:
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
        raise DailyError(f"cannot write the token file {path}: {exc}") from None


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

    def call(self, method: str, path: str, body: Any = None, *, auth: bool = True) -> Any:
        """The decoded JSON answer.

        Raises:
            RefusalError: a 4xx answer (its error and reason).
            DailyError: the server cannot be reached, or answers 5xx or not JSON.
        """
        assert self.http is not None
        headers = {"Authorization": f"Bearer {self.token}"} if auth and self.token else {}
        try:
            res = self.http.request(method, self.base + path, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise DailyError(f"cannot reach the server at {self.base}: {exc}") from None
        try:
            data = res.json() if res.content else None
        except ValueError:
            data = None
        if 400 <= res.status_code < 500:
            error = data.get("error") if isinstance(data, dict) else None
            reason = data.get("reason") if isinstance(data, dict) else None
            raise RefusalError(
                res.status_code, str(error or res.reason_phrase), str(reason or "error")
            )
        if res.status_code >= 300 or data is None:
            raise DailyError(
                f"the server at {self.base} answered {res.status_code} to {method} {path}"
                + ("" if data is None else f": {data}")
            )
        return data


# -- what the view shows --------------------------------------------------------------------
def drawing_order(departure: int, sections: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The sections of a line (the view lists them by link) in an order they can be drawn
    from ``departure``, each oriented from the station already on the line."""
    on_line = {departure}
    left = list(sections)
    out: list[tuple[int, int]] = []
    while left:
        for k, (a, b) in enumerate(left):
            if a in on_line or b in on_line:
                s, t = (a, b) if a in on_line else (b, a)
                out.append((s, t))
                on_line.add(t)
                del left[k]
                break
        else:  # not connected to the departure: the server's drawing, kept as sent
            out.extend(left)
            break
    return out


def player_map(city: CityMap, lines: dict[str, Any]) -> PlayerMap:
    """The player's map from a view's ``lines`` (``{colour: {"sections", "circled"}}``)."""
    drawn: dict[int, list[tuple[int, int]]] = {}
    circled: dict[int, int] = {}
    for c, colour in enumerate(city.colours):
        line = lines.get(colour) or {}
        pairs = [(city.station(a), city.station(b)) for a, b in line.get("sections", [])]
        drawn[c] = drawing_order(city.departures[c], pairs)
        if line.get("circled"):
            circled[c] = city.station(line["circled"])
    return draw_sheet(city, drawn, circled)


def legal_actions(city: CityMap, view: dict[str, Any]) -> list[TurnAction]:
    """The view's ``legal`` moves read as actions (for listing and highlighting)."""
    out = []
    for value in view.get("legal") or []:
        try:
            out.append(action_from_json(city, value))
        except NotationError:
            continue
    return out


def _panel(
    city: CityMap, view: dict[str, Any], name: str, legal: list[TurnAction]
) -> RenderableType:
    me = view["players"][0]
    colour = city.colours.index(me["colour"])
    grid = panel_head(city, name, view["round"], view.get("turn", 0), colour)
    chips = Text()
    for cid in view.get("flipped") or []:
        if cid in city.card_by_id:
            chips.append_text(card_text(city.card_by_id[cid]))
            chips.append(" ")
    kind = next((c.kind for c in city.deck if c.ends_round), "round-end")
    end = view.get("round_end") or {}
    chips.append(f"\n{kind}: {end.get('flipped', 0)}/{end.get('count', 5)}", style="#ff5fb4")
    grid.add_row("Cards", chips)
    card = view.get("card")
    if card in city.card_by_id:
        now = card_text(city.card_by_id[card], long=True)
        if view.get("branch"):
            now.append("  after a switch: start from any station of the line", style="#ffd23f")
        grid.add_row("Card now", now)
    power = me.get("power")
    if power:
        available = power.get("available")
        p = Text(power["id"], style="bold #ffd23f" if available else "bold strike")
        p.append(f" — {city.power_text.get(power['id'], '')}" if available else " used", style=_DIM)
        grid.add_row("Power", p)
    if view.get("objectives"):
        obj = Text()
        for k, o in enumerate(view["objectives"]):
            obj.append(("\n" if k else "") + o, style="bold")
            obj.append(f": {city.objective_text.get(o, '')}", style=_DIM)
        grid.add_row("Objectives", obj)
    scored = Text()
    for c, points in (me.get("line_scores") or {}).items():
        scored.append_text(colour_text(city, c, glyph=False))
        scored.append(f" {points}\n")
    if scored:
        scored.rstrip()
        grid.add_row("Scored", scored)
    sheet = me.get("sheet") or {}
    total = Text(str(sheet.get("total", (view.get("scores") or [0])[0])), style="bold")
    this_line = ((sheet.get("lines") or {}).get(me["colour"]) or {}).get("score")
    if this_line is not None:
        total.append(f"  (this line {this_line}, if the game ended now)", style=_DIM)
    grid.add_row("Total", total)
    if legal:
        grid.add_row("Moves", moves_text(city, legal))
    return grid


def turn_screen(city: CityMap, view: dict[str, Any], name: str, *, width: int) -> RenderableType:
    """The map (legal targets highlighted) beside, or above, the table panel."""
    me = view["players"][0]
    colour = city.colours.index(me["colour"])
    legal = legal_actions(city, view)
    targets = 0
    for a in legal:
        if not a.powers_used and a.sections:
            targets |= 1 << a.sections[-1][1]
    lines = me.get("lines") or {}
    fresh = not (lines.get(me["colour"]) or {}).get("sections")
    try:
        board: RenderableType = render_map(
            city,
            player_map(city, lines),
            MapView(
                current=colour,
                targets=targets,
                departure=city.departures[colour] if fresh else None,
            ),
        )
    except MetrogamesError as exc:  # a drawing this client cannot redraw: say so, go on
        board = Text(f"(cannot draw the map: {exc})", style=_DIM)
    left = Group(board, map_legend(city))
    panel = _panel(city, view, name, legal)
    if width >= map_width(city) + 36:
        outer = Table.grid(padding=(0, 2))
        outer.add_column(no_wrap=True, width=map_width(city))
        outer.add_column()
        outer.add_row(left, panel)
        return outer
    return Group(left, Text(""), panel)


def result_lines(result: dict[str, Any], game: str) -> list[Text]:
    """The result of ``GET .../result`` as printed lines."""
    out = [Text(f"Score: {result['score']}", style="bold green")]
    if result.get("rank") is not None:
        out.append(Text(f"Rank: {result['rank']} of {result.get('of')}", style="bold"))
    else:
        out.append(
            Text(f"Rank: not ranked (not shared or practice) · {result.get('of')} players ranked")
        )
    pct = result.get("percentile")
    if pct is not None:
        p = float(pct)
        shown = f"{p:.1f}" if p < 1 or p > 99 else f"{p:.0f}"
        out.append(Text(f"Percentile: {shown}"))
    rating = result.get("rating")
    if rating:
        text = f"Solo rating: band {rating.get('band')} ({rating.get('range')})"
        if rating.get("phrase"):
            text += f": “{rating['phrase']}”"
        out.append(Text(text, style="bold"))
    elif game == "london":
        out.append(Text("Solo rating: —", style=_DIM))
    bot = result.get("bot")
    if bot:
        diff = int(result["score"]) - int(bot["score"])
        verdict = (
            f"you beat it by {diff}" if diff > 0 else f"it beat you by {-diff}" if diff else "a tie"
        )
        out.append(
            Text(
                f"The {bot.get('name', 'greedy')} bot scored {bot['score']} on the same deal: "
                f"{verdict}"
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
        poll: float = 0.25,
    ) -> None:
        self.game = game
        self.server = server
        self.token_file = token_file
        self.console = console
        self.input_fn = input_fn
        self.share = share
        self.name = name
        self.poll = poll
        self.city = load_city(game)
        self.player: dict[str, Any] = {}
        self.seen_round = 0

    def ask(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except (EOFError, KeyboardInterrupt):
            raise QuitGame from None

    # -- the player ------------------------------------------------------------------------
    def sign_in(self) -> None:
        """Use the token file's player for this server, or create one (asking for a name)."""
        entry = load_players(self.token_file).get(self.server.base)
        if isinstance(entry, dict) and isinstance(entry.get("token"), str):
            self.server.token = entry["token"]
            try:
                me = self.server.call("GET", "/api/players/me")
            except RefusalError as exc:
                if exc.reason == "bad-token" or exc.status in (401, 403):
                    raise DailyError(
                        f"the server at {self.server.base} does not accept the player token in "
                        f"{self.token_file} ({exc.reason}); fix or delete that entry"
                    ) from None
                raise
            self.player = {"player": me["player"], "name": me["name"], "token": entry["token"]}
            streak = me.get("streak")
            self.console.print(
                Text(f"Playing as {me['name']}" + (f" · streak {streak}" if streak else ""))
            )
            return
        name = (self.name or "").strip()
        while not name:
            name = self.ask("Your display name for the daily challenge: ").strip()
        res = self.server.call("POST", "/api/players", {"name": name}, auth=False)
        self.player = {"player": res["player"], "name": res["name"], "token": res["token"]}
        self.server.token = res["token"]
        save_player(self.token_file, self.server.base, self.player)
        self.console.print(
            Text(
                f"Welcome, {res['name']}. Your player token is kept in {self.token_file} "
                "(copy it to play on another device).",
                style="bold",
            )
        )

    # -- the game ----------------------------------------------------------------------------
    def run(self) -> dict[str, Any] | None:
        """Play today's game to its end (or until the player stops); the result, or ``None``."""
        try:
            daily = self.server.call("GET", "/api/daily", auth=False)
        except RefusalError as exc:
            if exc.status != 404:
                raise
            raise DailyError(f"the server at {self.server.base} has no daily challenge") from None
        date = daily["date"]
        if self.game not in [g.get("game") for g in daily.get("games", [])]:
            raise DailyError(f"the server has no daily {self.game} challenge", 2)
        self.sign_in()
        left = max(0, int(float(daily["closes_at"]) - time.time()))
        self.console.print(
            Rule(f"Daily challenge · {self.city.title} · {date} (UTC)", style="bold")
        )
        self.console.print(
            Text(f"The day closes in {left // 3600} h {left % 3600 // 60:02d} min.", style=_DIM)
        )
        try:
            start = self.server.call(
                "POST", f"/api/daily/{self.game}/{date}/start", {"share": self.share}
            )
        except RefusalError as exc:
            if exc.reason != "attempt-used":
                raise
            self.console.print(
                Text(
                    f"You have played today's {self.city.title} challenge: one ranked attempt "
                    "per day. Your result:",
                    style="bold #ffd23f",
                )
            )
            return self.show_result(date)
        room = start["room"]
        self.console.print(
            Text(
                ("Ranked attempt" if start.get("ranked") else "Practice (not ranked)")
                + f" · room {room}"
                + ("" if self.share else " · not shared on the leaderboard"),
                style=_DIM,
            )
        )
        self.console.print(Text("Type help for the notation, quit to stop.", style=_DIM))
        try:
            final = self.play(room)
        except QuitGame:
            self.console.print(
                Text(
                    "Stopped. Your game stays open until the day closes: run the same command "
                    "to continue it.",
                    style="bold #ffd23f",
                )
            )
            return None
        self.final_sheet(final)
        return self.show_result(date)

    def view(self, room: str) -> dict[str, Any]:
        data: dict[str, Any] = self.server.call("GET", f"/api/rooms/{room}/view")
        return data

    def play(self, room: str) -> dict[str, Any]:
        """Play the room's game to its end; the last view."""
        view = self.view(room)
        self.seen_round = (view.get("last_round") or {}).get("round", 0)
        shown_step = -1
        while view["status"] != "finished":
            self.round_scores(view)
            if view["status"] != "playing" or not view.get("legal"):
                time.sleep(self.poll)
                view = self.view(room)
                continue
            if view["step"] != shown_step:
                self.console.print(
                    turn_screen(self.city, view, self.player["name"], width=self.console.width)
                )
                shown_step = view["step"]
            view = self.turn(room, view)
        self.round_scores(view)
        return view

    def turn(self, room: str, view: dict[str, Any]) -> dict[str, Any]:
        """One move: the player's typed action sent until the server takes it."""
        city = self.city
        legal = view["legal"]
        if legal == ["pass"]:
            self.console.print(
                Text("No section can be drawn with this card: you pass.", style="#ffd23f")
            )
            return self.send(room, view, "pass") or self.view(room)
        me = view["players"][0]
        card = city.card_by_id.get(view.get("card") or "")
        prompt = f"{self.player['name']} · {me['colour']} line"
        if card is not None:
            prompt += f" · {card.kind} {card.face}"
        commands = {
            "moves": lambda: moves_text(city, legal_actions(city, view), full=True),
            "map": lambda: turn_screen(city, view, self.player["name"], width=self.console.width),
        }
        while True:
            text = read_move(self.input_fn, prompt + " > ", self.console, HELP, commands)
            try:
                action = parse_action(city, text)
            except NotationError as exc:
                self.console.print(Text(f"✘ {exc}", style="bold red"))
                continue
            sent = self.send(room, view, action_to_json(city, action))
            if sent is not None:
                self.console.print(Text(f"You play {format_action(city, action)}", style="green"))
                return sent
            fresh = self.view(room)
            if fresh["step"] != view["step"]:
                return fresh

    def send(self, room: str, view: dict[str, Any], action: Any) -> dict[str, Any] | None:
        """The next view, or ``None`` when the server refused (its reason printed)."""
        try:
            data: dict[str, Any] = self.server.call(
                "POST", f"/api/rooms/{room}/actions", {"action": action, "step": view["step"]}
            )
        except RefusalError as exc:
            if exc.reason == "bad-token":
                raise
            self.console.print(Text(f"✘ refused: {exc.error} ({exc.reason})", style="bold red"))
            self.console.print(Text("Type a legal move, moves, help or quit.", style=_DIM))
            return None
        return data

    def round_scores(self, view: dict[str, Any]) -> None:
        """Print the line score of each round the first time the view shows it scored."""
        last = view.get("last_round")
        if not last or last.get("round", 0) <= self.seen_round:
            return
        self.seen_round = last["round"]
        line = (last.get("lines") or {}).get("0") or {}
        me = view["players"][0]
        colour = list((me.get("line_scores") or {}).keys())[-1:] or [me["colour"]]
        t = Text(f"End of round {last['round']}: ")
        t.append_text(colour_text(self.city, colour[0], glyph=False))
        t.append(f" {line.get('districts', 0)} districts × {line.get('max_in_district', 0)}")
        for key, label in (("thames", "Thames"), ("river", "river"), ("monuments", "monuments")):
            if line.get(key):
                t.append(f" + {line[key]} {label} × 2")
        t.append(" = ")
        t.append(str(line.get("score", "?")), style="bold")
        self.console.print(Rule(style=_DIM))
        self.console.print(t)

    # -- the end -----------------------------------------------------------------------------
    def show_result(self, date: str) -> dict[str, Any]:
        result: dict[str, Any] = self.server.call("GET", f"/api/daily/{self.game}/{date}/result")
        self.console.print(Rule(f"{self.city.title} · daily {date}: game over", style="bold"))
        self.console.print(Group(*result_lines(result, self.game)))
        self.console.print(
            Text(
                f"Leaderboard: {self.server.base}/#/daily/{self.game}/{date}",
                style=_DIM,
            )
        )
        return result

    def final_sheet(self, view: dict[str, Any]) -> None:
        """The finished map and score sheet, as the server scored them."""
        me = view["players"][0]
        try:
            self.console.print(render_map(self.city, player_map(self.city, me["lines"])))
        except MetrogamesError as exc:
            self.console.print(Text(f"(cannot draw the map: {exc})", style=_DIM))
        self.console.print(
            sheets_table(self.city, [self.player["name"]], [me["sheet"]], "Your score sheet")
        )


def play_daily(
    game: str,
    server: str,
    token_file: Path,
    console: Console,
    input_fn: Callable[[str], str],
    *,
    share: bool = True,
    name: str | None = None,
    http: httpx.Client | None = None,
) -> dict[str, Any] | None:
    """Play today's ``game`` challenge on ``server``; the result (``None`` when stopped).

    Raises:
        DailyError: a bad game or URL (code 2), an unreachable server, a refused token or
            another refusal (code 1).
    """
    if game not in DAILY_GAMES:
        raise DailyError(f"the daily challenge is {' or '.join(DAILY_GAMES)}, not {game!r}", 2)
    base = check_server(server)
    conn = Server(base, http)
    try:
        session = DailySession(game, conn, token_file, console, input_fn, share=share, name=name)
        return session.run()
    finally:
        conn.close()


__all__ = ["DailyError", "play_daily"]
