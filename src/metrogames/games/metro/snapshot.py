"""Metro position snapshots: one line of ASCII that gives a state back exactly (FEN's idea).

Source: ``docs/notation.md``, "Position snapshot: Metro". Fourteen fields separated by one space::

    metro/1 2 draw,allowed ......../......../......../...##.../...##.../........ ... - -/- C 0 place 0 1 - 7 -

(``#`` above only marks the central squares of the sketch; a snapshot writes ``.`` there.)

``metro/1``, players, ``turn_mode,one_tile_routes``, the board (rows 1–8 separated by ``/``,
one character per square A–H: ``.`` empty, else the tile letter), the pile (tile letters top
first, ``-`` when empty, ``?`` when hidden), the hands (one group per seat separated by ``/``:
tile letters, ``?`` per hidden tile, ``-`` when empty), the drawn tile (letter or ``-``), the
current seat, the phase (``deal draw place replace over``), tiles dealt, tiles drawn from the
pile, the completed routes in completion order (station numbers separated by ``,``, ``-`` for
none), the seed (``-`` for none) and the viewer (``-`` full state, a seat, ``spectator``).

A *tile letter* is ``A``–``X``: the tile type index in data order (``A`` = ``aaaa``, ``B`` =
``aacb``, ...; :data:`~metrogames.games.metro.tiles.MetroData.tile_codes`). Trains, route lengths
and scores are not written: the reader recomputes them from the tiles
(:meth:`~.board.MetroBoard.from_tiles`).
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from metrogames.core.errors import NotationError
from metrogames.core.protocol import HIDDEN, SPECTATOR
from metrogames.core.rng import check_seed
from metrogames.games.metro.board import MetroBoard
from metrogames.games.metro.options import ONE_TILE_ROUTES, PHASES, TURN_MODES, MetroOptions
from metrogames.games.metro.tiles import SIZE, SQUARES, TILES, MetroData, square_name

VERSION = "metro/1"
MAX_LENGTH = 600
"""Longest snapshot text accepted (characters); a real one is at most about 330."""
LETTERS = string.ascii_uppercase[:24]
"""Tile letter by tile type index."""
EMPTY, NONE, SPECTATOR_TEXT = ".", "-", "spectator"
FIELDS = (
    "version",
    "players",
    "options",
    "board",
    "pile",
    "hands",
    "drawn",
    "current",
    "phase",
    "dealt",
    "drawn count",
    "routes",
    "seed",
    "viewer",
)

if TYPE_CHECKING:
    from metrogames.games.metro.state import MetroGame, MetroState
_DEAL, _DRAW, _PLACE, _REPLACE, _OVER = range(5)
_DRAW_MODE, _HAND_MODE, _OFFICIAL_MODE = range(3)


# -- writing -------------------------------------------------------------------------------
def write_snapshot(state: MetroState) -> str:
    """The snapshot line of ``state`` (see the module docstring)."""
    data = state.data
    letter = {code: LETTERS[t] for t, code in enumerate(data.tile_codes)}
    letter[HIDDEN] = HIDDEN
    tiles = state.board.tiles
    rows = (
        "".join(LETTERS[t - 1] if t else EMPTY for t in tiles[r * SIZE : (r + 1) * SIZE])
        for r in range(SIZE)
    )
    pile = HIDDEN if state.viewer is not None else _letters(state.known_pile(), letter)
    hands = (_letters(state.hand(p), letter) for p in range(state.num_players))
    drawn = state.drawn_tile
    viewer = state.viewer
    fields = (
        VERSION,
        str(state.num_players),
        f"{state.game.options.turn_mode},{state.game.options.one_tile_routes}",
        "/".join(rows),
        pile,
        "/".join(hands),
        NONE if drawn is None else letter[drawn],
        str(state.current),
        state.phase,
        str(state.dealt),
        str(state.drawn_count),
        ",".join(str(k + 1) for k in state.board.completed) or NONE,
        NONE if state.seed is None else str(state.seed),
        NONE if viewer is None else SPECTATOR_TEXT if viewer == SPECTATOR else str(viewer),
    )
    return " ".join(fields)


def _letters(codes: Sequence[str], letter: dict[str, str]) -> str:
    return "".join(letter[c] for c in codes) or NONE


# -- reading -------------------------------------------------------------------------------
def read_snapshot(game: MetroGame, text: object) -> MetroState:
    """The state a snapshot line describes, for ``game`` (its history starts empty).

    Raises:
        NotationError: naming the field and the problem: not text, not ASCII or too long; not
            a Metro snapshot or another version; another player count or options than
            ``game``'s; a wrong number of fields, bad syntax, unknown tile letters; more copies
            of a tile than exist; content no game reaches (a tile on a central square or cut
            off from the edge, a hand size or turn impossible in the mode and phase, counts
            that do not add up, routes that are not the complete ones, a seed whose pile is
            not this one, hidden tiles in a full state or a view showing them).
    """
    fields = _split(text)
    _check_head(game, fields)
    data = game.data
    viewer = _read_viewer(fields[13], game.players)
    tiles = _read_board(data, fields[3])
    pile = _read_pile(fields[4], viewer)
    hands = _read_hands(fields[5], game.players, viewer)
    drawn = NONE if fields[6] == NONE else _read_letters("drawn", fields[6], 1, 1)[0]
    parts = _Parts(
        tiles,
        pile,
        hands,
        -1 if drawn == NONE else _index(drawn),
        _read_int("current", fields[7], 0, game.players - 1),
        _read_phase(fields[8]),
        _read_int("dealt", fields[9], 0, game.players),
        _read_int("drawn count", fields[10], 0, TILES),
        viewer,
    )
    _check_counts(data, parts)
    _check_turn(game, parts)
    seed = _read_seed(fields[12], viewer)
    if seed is not None:
        _check_seed_pile(game, seed, parts)
    board = _read_routes(game, tiles, fields[11])
    return game.restored_state(
        board,
        pile=None if pile is None else bytes(pile),
        hands=hands,
        drawn=parts.drawn,
        current=parts.current,
        phase=parts.phase,
        dealt=parts.dealt,
        seed=seed,
        viewer=viewer,
    )


class _Parts:
    """The fields read so far, as tile type indices (-1: hidden)."""

    def __init__(
        self,
        tiles: bytes,
        pile: list[int] | None,
        hands: list[list[int]],
        drawn: int,
        current: int,
        phase: int,
        dealt: int,
        drawn_count: int,
        viewer: int | None,
    ) -> None:
        self.tiles = tiles
        self.pile = pile
        self.hands = hands
        self.drawn = drawn
        self.current = current
        self.phase = phase
        self.dealt = dealt
        self.drawn_count = drawn_count
        self.viewer = viewer
        self.placed = sum(1 for t in tiles if t)

    def drawn_tiles(self) -> list[int]:
        """Tile type indices of every tile taken from the pile and known (board, hands,
        drawn)."""
        out = [t - 1 for t in self.tiles if t]
        out += [t for h in self.hands for t in h if t >= 0]
        if self.drawn >= 0:
            out.append(self.drawn)
        return out


def _split(text: object) -> list[str]:
    if not isinstance(text, str):
        raise NotationError(f"a Metro snapshot must be text, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise NotationError(f"a Metro snapshot is at most {MAX_LENGTH} characters")
    if not text.isascii() or not text.isprintable():
        raise NotationError("a Metro snapshot is one line of printable ASCII")
    fields = text.split(" ")
    head = fields[0]
    if head != VERSION:
        if head.startswith("metro/"):
            raise NotationError(f"unknown Metro snapshot version {head!r} (expected {VERSION})")
        raise NotationError(f"not a Metro snapshot: it must start with {VERSION}")
    if len(fields) != len(FIELDS):
        raise NotationError(
            f"a Metro snapshot has {len(FIELDS)} fields separated by single spaces, "
            f"not {len(fields)}"
        )
    for name, value in zip(FIELDS, fields, strict=True):
        if not value:
            raise NotationError(f"snapshot field {name} is empty")
    return fields


def _check_head(game: MetroGame, fields: list[str]) -> None:
    """Player count and options must be ``game``'s."""
    players = _read_int("players", fields[1], 0, 99)
    if players != game.players:
        raise NotationError(
            f"a snapshot of a {players}-player game, not of this {game.players}-player game"
        )
    mode, _, routes = fields[2].partition(",")
    if mode not in TURN_MODES or routes not in ONE_TILE_ROUTES:
        raise NotationError(
            f"snapshot field options: {fields[2]!r} is not turn_mode,one_tile_routes "
            f"(turn modes {', '.join(TURN_MODES)}; one_tile_routes {', '.join(ONE_TILE_ROUTES)})"
        )
    if MetroOptions(mode, routes) != game.options:
        ours = f"{game.options.turn_mode},{game.options.one_tile_routes}"
        raise NotationError(f"a snapshot with options {fields[2]}, not this game's {ours}")


def _read_int(name: str, text: str, low: int, high: int) -> int:
    if not (text.isdigit() and len(text) <= 20) or (len(text) > 1 and text[0] == "0"):
        raise NotationError(f"snapshot field {name}: {text!r} is not a number")
    value = int(text)
    if not low <= value <= high:
        raise NotationError(f"snapshot field {name}: {value} is not in {low}-{high}")
    return value


def _read_viewer(text: str, players: int) -> int | None:
    if text == NONE:
        return None
    if text == SPECTATOR_TEXT:
        return SPECTATOR
    return _read_int("viewer", text, 0, players - 1)


def _read_phase(text: str) -> int:
    if text not in PHASES:
        raise NotationError(f"snapshot field phase: {text!r} is not one of {', '.join(PHASES)}")
    return PHASES.index(text)


def _read_seed(text: str, viewer: int | None) -> int | None:
    if text == NONE:
        return None
    if viewer is not None:
        raise NotationError("snapshot field seed: a view has no seed")
    try:
        return check_seed(_read_int("seed", text, 0, 2**64 - 1))
    except ValueError as exc:
        raise NotationError(f"snapshot field seed: {exc}") from None


def _index(letter: str) -> int:
    return LETTERS.index(letter)


def _read_letters(name: str, text: str, low: int, high: int, hidden: bool = False) -> str:
    """``text`` when it is ``low``–``high`` tile letters (and ``?`` with ``hidden``)."""
    allowed = LETTERS + (HIDDEN if hidden else "")
    bad = next((c for c in text if c not in allowed), None)
    if bad is not None:
        raise NotationError(
            f"snapshot field {name}: {bad!r} is not a tile letter (A-X"
            + (", or ? for a hidden tile)" if hidden else ")")
        )
    if not low <= len(text) <= high:
        raise NotationError(f"snapshot field {name}: {len(text)} tiles, expected {low}-{high}")
    return text


def _read_board(data: MetroData, text: str) -> bytes:
    rows = text.split("/")
    if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
        raise NotationError(
            f"snapshot field board: {SIZE} rows of {SIZE} squares separated by /, not {text!r}"
        )
    cells = "".join(rows)
    tiles = bytearray(SQUARES)
    for sq, c in enumerate(cells):
        if c == EMPTY:
            continue
        if c not in LETTERS:
            raise NotationError(
                f"snapshot field board: {square_name(sq)} holds {c!r}, not a tile letter "
                "(A-X) or . for an empty square"
            )
        if data.central_mask >> sq & 1:
            raise NotationError(
                f"snapshot field board: {square_name(sq)} is a central-station square and "
                "takes no tile"
            )
        tiles[sq] = _index(c) + 1
    _check_reachable(data, tiles)
    return bytes(tiles)


def _check_reachable(data: MetroData, tiles: bytearray) -> None:
    """Every tile must be reachable by legal placements: each group of touching tiles
    touches the board edge."""
    occupied = 0
    for sq, t in enumerate(tiles):
        if t:
            occupied |= 1 << sq
    reached = occupied & data.edge_mask
    frontier = reached
    while frontier:
        grown = 0
        rest = frontier
        while rest:
            low = rest & -rest
            grown |= data.neighbours[low.bit_length() - 1]
            rest ^= low
        frontier = grown & occupied & ~reached
        reached |= frontier
    cut = occupied & ~reached
    if cut:
        sq = (cut & -cut).bit_length() - 1
        raise NotationError(
            f"snapshot field board: the tile on {square_name(sq)} touches neither the edge "
            "nor a tile leading to it: no game places it"
        )


def _read_pile(text: str, viewer: int | None) -> list[int] | None:
    if text == HIDDEN:
        if viewer is None:
            raise NotationError("snapshot field pile: only a view hides the pile (?)")
        return None
    if viewer is not None:
        raise NotationError("snapshot field pile: a view hides the pile order: write ?")
    if text == NONE:
        return []
    return [_index(c) for c in _read_letters("pile", text, 1, TILES)]


def _read_hands(text: str, players: int, viewer: int | None) -> list[list[int]]:
    groups = text.split("/")
    if len(groups) != players:
        raise NotationError(f"snapshot field hands: {len(groups)} hands for {players} players")
    hands = []
    for p, group in enumerate(groups):
        name = f"hands (player {p})"
        tiles = "" if group == NONE else _read_letters(name, group, 1, 2, hidden=True)
        hidden = [c == HIDDEN for c in tiles]
        if viewer is not None and viewer != p and not all(hidden):
            raise NotationError(f"snapshot field {name}: a view shows no other hand: write ?")
        if (viewer is None or viewer == p) and any(hidden):
            who = "a full state" if viewer is None else "the viewer's own hand"
            raise NotationError(f"snapshot field {name}: {who} hides no tile")
        hands.append([-1 if c == HIDDEN else _index(c) for c in tiles])
    return hands


def _check_counts(data: MetroData, parts: _Parts) -> None:
    """No more copies of a type than exist; the drawn count adds up; the pile fits."""
    known = Counter(parts.drawn_tiles()) + Counter(parts.pile or ())
    for t, n in sorted(known.items()):
        if n > data.tile_counts[t]:
            raise NotationError(
                f"snapshot: {n} tiles {data.tile_codes[t]} (letter {LETTERS[t]}), but only "
                f"{data.tile_counts[t]} exist"
            )
    held = sum(len(h) for h in parts.hands) + (parts.drawn >= 0)
    if parts.drawn_count != parts.placed + held:
        raise NotationError(
            f"snapshot field drawn count: {parts.drawn_count}, but {parts.placed} tiles on the "
            f"board and {held} in hand make {parts.placed + held}"
        )
    if parts.pile is not None and len(parts.pile) > TILES - parts.drawn_count:
        raise NotationError(
            f"snapshot field pile: {len(parts.pile)} tiles, but only "
            f"{TILES - parts.drawn_count} are left after {parts.drawn_count} draws"
        )


def _check_turn(game: MetroGame, parts: _Parts) -> None:
    """The phase, the turn, the hand sizes and the drawn tile must fit the turn mode."""
    problem = _turn_problem(game, parts)
    if problem:
        raise NotationError(f"snapshot: {problem} ({game.options.turn_mode} mode)")


def _turn_problem(game: MetroGame, parts: _Parts) -> str:
    """What no game of this mode reaches in these parts, or ``""``."""
    mode = ("draw", "hand", "official-hand").index(game.options.turn_mode)
    phase, n = parts.phase, game.players
    sizes = [len(h) for h in parts.hands]
    pile_left = parts.drawn_count < TILES
    if (phase == _OVER) != (parts.placed == TILES):
        return f"phase {PHASES[phase]} with {parts.placed} tiles on the board"
    if phase in (_DEAL, _DRAW, _REPLACE) and not pile_left:
        return f"phase {PHASES[phase]} with an empty pile"
    if parts.drawn >= 0 and (phase != _PLACE or mode == _HAND_MODE):
        return f"a drawn tile in phase {PHASES[phase]}"
    if mode == _DRAW_MODE:
        return _draw_mode_problem(parts, sizes, n)
    if phase == _DEAL:
        return _deal_problem(parts, sizes)
    if parts.dealt != n:
        return f"{parts.dealt} starting tiles dealt after the deal"
    if phase == _REPLACE and mode == _HAND_MODE:
        return "phase replace"
    return _hand_problem(parts, sizes, mode, n)


def _draw_mode_problem(parts: _Parts, sizes: list[int], n: int) -> str:
    if parts.phase in (_DEAL, _REPLACE):
        return f"phase {PHASES[parts.phase]}"
    if any(sizes) or parts.dealt:
        return "players hold no tile"
    if parts.phase == _PLACE and parts.drawn < 0:
        return "phase place without a drawn tile"
    expected = (TILES - 1) % n if parts.phase == _OVER else parts.placed % n
    if parts.current != expected:
        return f"player {parts.current} to play after {parts.placed} placements"
    return ""


def _deal_problem(parts: _Parts, sizes: list[int]) -> str:
    dealt = [1 if p < parts.dealt else 0 for p in range(len(sizes))]
    if parts.placed or parts.current or sizes != dealt or parts.dealt == len(sizes):
        return f"hands {sizes} with {parts.dealt} tiles dealt in phase deal"
    return ""


def _hand_problem(parts: _Parts, sizes: list[int], mode: int, n: int) -> str:
    """After the deal in the hand modes."""
    p, phase = parts.current, parts.phase
    others = sizes[:p] + sizes[p + 1 :]
    if phase == _OVER:
        return "" if not any(sizes) else "players hold tiles at the end"
    if parts.drawn_count < TILES:
        own = {_DRAW: 1, _REPLACE: 0, _PLACE: 2 if mode == _HAND_MODE else 1}[phase]
        turn = (parts.placed - (phase == _REPLACE)) % n
        if sizes[p] != own or any(s != 1 for s in others):
            return f"hands {sizes} in phase {PHASES[phase]} while the pile lasts"
        if p != turn:
            return f"player {p} to play after {parts.placed} placements"
        return ""
    most = 2 if mode == _HAND_MODE else 1
    if any(s > 1 for s in others) or sizes[p] > most:
        return f"hands {sizes} once the pile is empty"
    if sizes[p] == 2 and any(s != 1 for s in others):
        return f"hands {sizes}: the player who drew the last tile plays first"
    if not sizes[p] and parts.drawn < 0:
        return f"player {p} to play with no tile"
    return ""


def _check_seed_pile(game: MetroGame, seed: int, parts: _Parts) -> None:
    """A state that keeps its seed holds that seed's tiles: the drawn ones and the pile."""
    full = [game.data.tile_index[c] for c in game.pile_for(seed)]
    count = parts.drawn_count
    if Counter(parts.drawn_tiles()) != Counter(full[:count]):
        raise NotationError(
            f"snapshot field seed: the tiles drawn are not the first {count} of seed {seed}'s pile"
        )
    pile = parts.pile or []
    if pile != full[count : count + len(pile)]:
        raise NotationError(f"snapshot field pile: not the rest of seed {seed}'s pile")


def _read_routes(game: MetroGame, tiles: bytes, text: str) -> MetroBoard:
    """The board of ``tiles`` with the routes completed in the listed order."""
    order: list[int] = []
    if text != NONE:
        for item in text.split(","):
            number = _read_int("routes", item, 1, len(game.data.stations))
            if number - 1 in order:
                raise NotationError(f"snapshot field routes: station {number} listed twice")
            order.append(number - 1)
    data = game.data
    try:
        return MetroBoard.from_tiles(data, data.owners(game.players), game.players, tiles, order)
    except ValueError as exc:
        raise NotationError(f"snapshot field routes: {exc}") from None
