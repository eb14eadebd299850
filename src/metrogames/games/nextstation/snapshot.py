"""Next Station position snapshots: a compact, versioned, one-line ASCII string (FEN's idea).

Source: ``docs/notation.md``, "Position snapshot: Next Station" (the format, with an example).
A snapshot holds what play needs — the resolved deal, the round and its flipped cards, the turn
bookkeeping and each player's lines — and nothing that can be derived: stations, ends, drawn and
blocked links, scored lines and tourist boxes are recomputed by the reader. It does not hold the
history. :func:`format_position` writes a :class:`Position`; :func:`parse_position` reads one
back and refuses anything inconsistent with :class:`~metrogames.core.errors.NotationError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from metrogames.core.errors import NotationError
from metrogames.core.protocol import SPECTATOR
from metrogames.games.nextstation.citymap import CityMap, bits
from metrogames.games.nextstation.deal import ROUNDS, Deal, Options, colour_for
from metrogames.games.nextstation.index import card_positions

VERSION = 1
MAX_LENGTH = 4096
"""Longest snapshot read (characters); a real 4-player one is under 1000."""
HEAD_FIELDS = 10
"""Fields before the per-player fields."""
FIRST_EFFECTIVE_SWITCH = 3
_HEX = "0123456789abcdef"
_BITSET = re.compile(r"0|[1-9a-f][0-9a-f]*")
_LINE = re.compile(r"(0|[1-9a-f][0-9a-f]*)(?:@([A-Z][0-9]{1,2}))?")
_PLAYER = re.compile(r"([+-])([^/]*)(?:/([+-])(.*))?")
_BOOKKEEPING = re.compile(r"(0|[1-9][0-9]?)\.(0|[1-9][0-9]?)\.([0-9a-f])\.(-|(?=.)a?b?o?)")


@dataclass(frozen=True)
class Line:
    """One line: its links (bitset over link indices) and its circled station (-1: none)."""

    sections: int
    circled: int = -1


@dataclass(frozen=True)
class PlayerPart:
    """One player's part: the power-used flag, a :class:`Line` per colour index, and — for a
    player who has acted in the turn in progress — the power flag and the current colour's
    line as they were when the turn's card was flipped (``None`` when unchanged or unknown)."""

    power_used: bool
    lines: tuple[Line, ...]
    turn_start: tuple[bool, Line] | None = None


@dataclass(frozen=True)
class Position:
    """What a snapshot holds (the fields of
    :class:`~metrogames.games.nextstation.state.NextStationState` of the same names).

    ``viewer``: ``None`` for a full state, a seat, or :data:`SPECTATOR`.
    """

    viewer: int | None
    deal: Deal
    round: int
    flipped: tuple[str, ...]
    turn: int
    ends_flipped: int
    pending: int
    awaiting_card: bool
    branch: bool
    over: bool
    players: tuple[PlayerPart, ...]


# -- writing -------------------------------------------------------------------------------
def format_position(city: CityMap, pos: Position) -> str:
    """The snapshot string of ``pos`` (``docs/notation.md``, "Position snapshot")."""
    deal = pos.deal
    cards = card_positions(city.key)
    flags = ("a" if pos.awaiting_card else "") + ("b" if pos.branch else "")
    flags += "o" if pos.over else ""
    fields = [
        f"{city.city}/{VERSION}",
        str(len(pos.players)),
        "-" if pos.viewer is None else "*" if pos.viewer == SPECTATOR else str(pos.viewer),
        _hex_digits(deal.colour_cycle),
        _hex_digits([city.objectives.index(o) for o in deal.objectives]) or "-",
        "-" if deal.powers is None else _hex_digits([city.powers.index(p) for p in deal.powers]),
        ",".join("?" if d is None else _hex_digits([cards[c] for c in d]) for d in deal.decks),
        str(pos.round),
        _hex_digits([cards[c] for c in pos.flipped]) or "-",
        f"{pos.turn}.{pos.ends_flipped}.{pos.pending:x}.{flags or '-'}",
        *(_player_text(city, part) for part in pos.players),
    ]
    return " ".join(fields)


def _hex_digits(values: tuple[int, ...] | list[int]) -> str:
    return "".join(_HEX[v] for v in values)


def _line_text(city: CityMap, line: Line) -> str:
    circle = f"@{city.stations[line.circled].name}" if line.circled >= 0 else ""
    return f"{line.sections:x}{circle}"


def _player_text(city: CityMap, part: PlayerPart) -> str:
    text = ("+" if part.power_used else "-") + ",".join(_line_text(city, ln) for ln in part.lines)
    if part.turn_start is not None:
        used, line = part.turn_start
        text += "/" + ("+" if used else "-") + _line_text(city, line)
    return text


# -- reading -------------------------------------------------------------------------------
def parse_position(city: CityMap, players: int, options: Options, text: object) -> Position:
    """Read a snapshot of a ``players``-player game of ``city`` with ``options``.

    Raises:
        NotationError: not text, too long, another game, version, player count or options,
            bad syntax, unknown cards or stations, or inconsistent content (the message names
            the field and the problem).
    """
    fields = _fields(city, players, text)
    deal = Deal(
        _cycle(city, fields[3]),
        _objectives(city, fields[4]),
        _powers(city, fields[5]),
        _decks(city, fields[6]),
    )
    _check_options(city, options, deal)
    if fields[7] not in {str(r) for r in range(ROUNDS + 1)}:
        raise NotationError(f"snapshot: round must be 0 to {ROUNDS}, not {_short(fields[7])}")
    flipped = _cards(city, fields[8], "flipped cards", allow_empty=True)
    match = _BOOKKEEPING.fullmatch(fields[9])
    if match is None:
        raise NotationError(
            f"snapshot: bad turn field {_short(fields[9])} (expected TURN.ENDS.PENDING.FLAGS)"
        )
    flags = match[4]
    pos = Position(
        viewer=_viewer(fields[2], players),
        deal=deal,
        round=int(fields[7]),
        flipped=tuple(flipped),
        turn=int(match[1]),
        ends_flipped=int(match[2]),
        pending=int(match[3], 16),
        awaiting_card="a" in flags,
        branch="b" in flags,
        over="o" in flags,
        players=tuple(_player(city, k, f) for k, f in enumerate(fields[HEAD_FIELDS:])),
    )
    check_position(city, pos)
    return pos


def _fields(city: CityMap, players: int, text: object) -> list[str]:
    if not isinstance(text, str):
        raise NotationError(f"a snapshot must be text, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise NotationError(f"a snapshot has at most {MAX_LENGTH} characters, not {len(text)}")
    if not text.isascii() or not text.isprintable():
        raise NotationError("a snapshot is printable ASCII on one line")
    fields = text.split(" ")
    name, slash, version = fields[0].partition("/")
    if not slash or name != city.city:
        raise NotationError(f"not a {city.city} snapshot: it starts {_short(fields[0])}")
    if version != str(VERSION):
        raise NotationError(
            f"snapshot version {_short(version)} is not supported (this program reads {VERSION})"
        )
    count = fields[1] if len(fields) > 1 else ""
    if count != str(players):
        raise NotationError(f"a snapshot for {_short(count)} players, not {players}")
    if len(fields) != HEAD_FIELDS + players:
        raise NotationError(
            f"a {players}-player snapshot has {HEAD_FIELDS + players} space-separated fields, "
            f"not {len(fields)}"
        )
    return fields


def _viewer(text: str, players: int) -> int | None:
    if text == "-":
        return None
    if text == "*":
        return SPECTATOR
    if text in {str(p) for p in range(players)}:
        return int(text)
    raise NotationError(
        f"snapshot: viewer must be -, * or a seat 0-{players - 1}, not {_short(text)}"
    )


def _digits(text: str, limit: int, what: str) -> list[int]:
    """Distinct hex digits below ``limit``."""
    values = [_HEX.find(ch) for ch in text]
    if any(not 0 <= v < limit for v in values):
        raise NotationError(f"snapshot: {what} {_short(text)}: digits 0-{_HEX[limit - 1]} expected")
    if len(set(values)) != len(values):
        raise NotationError(f"snapshot: {what} {_short(text)} repeats a digit")
    return values


def _cycle(city: CityMap, text: str) -> tuple[int, ...]:
    cycle = _digits(text, len(city.colours), "colour cycle")
    if len(cycle) != len(city.colours):
        raise NotationError(f"snapshot: the colour cycle lists the {len(city.colours)} colours")
    return tuple(cycle)


def _objectives(city: CityMap, text: str) -> tuple[str, ...]:
    if text == "-":
        return ()
    chosen = _digits(text, len(city.objectives), "objectives")
    if len(chosen) != 2:
        raise NotationError(f"snapshot: objectives are - or 2 ids, not {len(chosen)}")
    return tuple(city.objectives[i] for i in chosen)


def _powers(city: CityMap, text: str) -> tuple[str, ...] | None:
    if text == "-":
        return None
    if not city.powers:
        raise NotationError(f"snapshot: {city.title} has no pencil powers")
    chosen = _digits(text, len(city.powers), "powers")
    if len(chosen) != len(city.colours):
        raise NotationError(f"snapshot: powers give one power per colour ({len(city.colours)})")
    return tuple(city.powers[i] for i in chosen)


def _cards(city: CityMap, text: str, what: str, allow_empty: bool = False) -> list[str]:
    if allow_empty and text == "-":
        return []
    positions = _digits(text, len(city.deck), what)
    if not positions or len(positions) > len(city.deck):
        raise NotationError(f"snapshot: bad {what} {_short(text)}")
    return [city.deck[i].id for i in positions]


def _decks(city: CityMap, text: str) -> tuple[tuple[str, ...] | None, ...]:
    parts = text.split(",")
    if len(parts) != ROUNDS:
        raise NotationError(f"snapshot: {ROUNDS} decks (each 11 cards or ?) expected")
    decks: list[tuple[str, ...] | None] = []
    for r, part in enumerate(parts, 1):
        if part == "?":
            decks.append(None)
            continue
        deck = _cards(city, part, f"round {r} deck")
        if len(deck) != len(city.deck):
            raise NotationError(f"snapshot: round {r} deck must list the {len(city.deck)} cards")
        decks.append(tuple(deck))
    return tuple(decks)


def _line(city: CityMap, text: str, where: str) -> Line:
    match = _LINE.fullmatch(text)
    if match is None:
        raise NotationError(f"snapshot: {where}: bad line {_short(text)} (hex links[@STATION])")
    sections = int(match[1], 16)
    if sections >> len(city.links):
        extra = bits(sections >> len(city.links))[0] + len(city.links)
        raise NotationError(
            f"snapshot: {where}: bit {extra} is not a link ({city.title} has {len(city.links)})"
        )
    circled = -1
    if match[2] is not None:
        circled = city.station_index.get(match[2], -1)
        if circled < 0 or city.stations[circled].name != match[2]:
            raise NotationError(f"snapshot: {where}: unknown station {match[2]}")
    return Line(sections, circled)


def _player(city: CityMap, player: int, text: str) -> PlayerPart:
    match = _PLAYER.fullmatch(text)
    if match is None:
        raise NotationError(f"snapshot: player {player}: bad field {_short(text)}")
    texts = match[2].split(",")
    if len(texts) != len(city.colours):
        raise NotationError(f"snapshot: player {player}: {len(city.colours)} lines expected")
    lines = tuple(
        _line(city, t, f"player {player}, {city.colours[c]} line") for c, t in enumerate(texts)
    )
    start = None
    if match[3] is not None:
        start = (match[3] == "+", _line(city, match[4], f"player {player}, turn start"))
    return PlayerPart(match[1] == "+", lines, start)


# -- consistency ---------------------------------------------------------------------------
def check_position(city: CityMap, pos: Position) -> None:
    """Refuse a position no game can reach (the message names the problem).

    Raises:
        NotationError: cards, turn bookkeeping, a view's content or a player's lines that
            contradict each other or the rules of drawing.
    """
    _check_cards(pos)
    _check_bookkeeping(city, pos)
    if pos.viewer is not None and any(d is not None for d in pos.deal.decks):
        raise NotationError("snapshot: a view's decks are unknown (?)")
    for p, part in enumerate(pos.players):
        _check_player(city, pos, p, part)


def _check_options(city: CityMap, options: Options, deal: Deal) -> None:
    """The resolved deal must be one the game's options allow."""
    cycle = tuple(city.colours[i] for i in deal.colour_cycle)
    if options.colour_cycle is not None and cycle != tuple(options.colour_cycle):
        raise NotationError(
            f"snapshot: colour cycle {' '.join(cycle)} is not the game's "
            f"{' '.join(options.colour_cycle)}"
        )
    wanted = options.objectives
    if (wanted == "random" and len(deal.objectives) != 2) or (
        wanted != "random" and tuple(wanted) != deal.objectives
    ):
        raise NotationError(
            f"snapshot: objectives {', '.join(deal.objectives) or 'none'} do not match the "
            f"game's options ({_short(wanted) if wanted else 'none'})"
        )
    powers = options.powers
    if (powers is None) != (deal.powers is None) or powers not in ("random", deal.powers):
        raise NotationError(
            f"snapshot: pencil powers {'on' if deal.powers else 'off'} do not match the game's "
            f"options ({_short(powers) if powers else 'none'})"
        )


def _check_cards(pos: Position) -> None:
    flipped = pos.flipped
    if pos.round < ROUNDS:
        deck = pos.deal.decks[pos.round]
        if deck is not None and deck[: len(flipped)] != flipped:
            raise NotationError(
                f"snapshot: flipped cards are not the first cards of the round {pos.round + 1} deck"
            )
    elif flipped:
        raise NotationError("snapshot: cards flipped after the last round")


def _check_bookkeeping(city: CityMap, pos: Position) -> None:
    faces = [city.card_by_id[c] for c in pos.flipped]
    ends = [card.ends_round for card in faces]
    switch = next((k for k, card in enumerate(faces) if card.face == "switch"), -1)
    last = len(faces) - (1 if pos.awaiting_card else 2)
    expected = {
        "turn": sum(card.face != "switch" for card in faces),
        "ends": sum(ends),
        "switch effect": switch + 1 >= FIRST_EFFECTIVE_SWITCH and switch == last,
        "waiting for a card": not pos.over and not pos.pending,
        "game over": pos.round == ROUNDS,
    }
    found = {
        "turn": pos.turn,
        "ends": pos.ends_flipped,
        "switch effect": pos.branch,
        "waiting for a card": pos.awaiting_card,
        "game over": pos.over,
    }
    for key, value in expected.items():
        if found[key] != value:
            raise NotationError(f"snapshot: {key} is {found[key]}, the cards say {value}")
    if pos.pending >> len(pos.players):
        raise NotationError(f"snapshot: pending players {pos.pending:x} are not all seats")
    playing = not pos.awaiting_card and not pos.over
    if playing and faces[-1].face == "switch":
        raise NotationError("snapshot: players act after a switch, before the next card")
    if sum(ends[:-1] if playing else ends) >= city.round_end_count:
        raise NotationError("snapshot: the round should have ended")


def _check_player(city: CityMap, pos: Position, p: int, part: PlayerPart) -> None:
    n = len(pos.players)
    played = {colour_for(pos.deal, n, p, r) for r in range(min(pos.round + 1, ROUNDS))}
    where = f"player {p}"
    drawn = 0
    for c, line in enumerate(part.lines):
        name = f"{where}, {city.colours[c]} line"
        if c not in played and (line.sections or line.circled >= 0):
            raise NotationError(f"snapshot: {name} is drawn before its round")
        _check_line(city, pos, c, line, name)
        if drawn & line.sections:
            link = bits(drawn & line.sections)[0]
            raise NotationError(f"snapshot: {where}: link {city.link_name(link)} is on two lines")
        drawn |= line.sections
    for link in bits(drawn):
        if city.conflicts[link] & drawn:
            other = bits(city.conflicts[link] & drawn)[0]
            raise NotationError(
                f"snapshot: {where}: {city.link_name(link)} crosses {city.link_name(other)}"
            )
    if part.power_used and (pos.deal.powers is None or pos.turn == 0):
        raise NotationError(f"snapshot: {where} used a power with no power to use")
    _check_turn_start(city, pos, p, part)


def _check_turn_start(city: CityMap, pos: Position, p: int, part: PlayerPart) -> None:
    if part.turn_start is None:
        return
    where = f"player {p}, turn start"
    acted = not pos.awaiting_card and not pos.over and not (pos.pending >> p) & 1
    if not acted or pos.viewer not in (None, p):
        raise NotationError(f"snapshot: {where}: only for a player who acted in this turn")
    used, line = part.turn_start
    colour = colour_for(pos.deal, len(pos.players), p, pos.round)
    now = part.lines[colour]
    if (
        line.sections & ~now.sections
        or line.circled not in (-1, now.circled)
        or (used and not part.power_used)
    ):
        raise NotationError(f"snapshot: {where} is not an earlier state of the line")
    _check_line(city, pos, colour, line, where)


def _check_line(city: CityMap, pos: Position, colour: int, line: Line, where: str) -> None:
    """A drawn line is a path-like tree of links from its departure station."""
    powers = pos.deal.powers
    if line.circled >= 0 and (powers is None or powers[colour] != "circle-station"):
        raise NotationError(f"snapshot: {where}: a circle without the circle-station pencil")
    if not line.sections:
        if line.circled >= 0:
            raise NotationError(f"snapshot: {where}: a circle on an empty line")
        return
    reached = 1 << city.departures[colour]
    todo = line.sections
    while True:
        step = [j for j in bits(todo) if any((reached >> s) & 1 for s in city.links[j])]
        if not step:
            break
        for j in step:
            todo &= ~(1 << j)
            for s in city.links[j]:
                reached |= 1 << s
    if todo:
        raise NotationError(
            f"snapshot: {where}: {city.link_name(bits(todo)[0])} is not joined to the "
            f"departure station {city.stations[city.departures[colour]].name}"
        )
    if reached.bit_count() != line.sections.bit_count() + 1:
        raise NotationError(f"snapshot: {where} visits a station twice")
    if line.circled >= 0 and not (reached >> line.circled) & 1:
        raise NotationError(
            f"snapshot: {where}: the circled {city.stations[line.circled].name} is not on it"
        )


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
