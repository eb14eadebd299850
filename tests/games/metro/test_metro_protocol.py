"""The Metro engine's protocol members (core/protocol.py): indices, chance outcomes, legality,
views and resampling, score components, last completed routes, options, records, notation.

Expected values are derived independently where possible: action indices from the
``tile * 64 + square`` layout, tile counts from the raw data file, unseen tiles by counting what
is on the board and in the hands, routes completed by a placement from ``routes()`` before and
after it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

import pytest

from metrogames.core.capabilities import Boards, Presented
from metrogames.core.errors import (
    IllegalActionError,
    NotationError,
    OptionError,
    RecordError,
)
from metrogames.core.protocol import CHANCE, SPECTATOR
from metrogames.core.rng import Rng
from metrogames.data import load_json
from metrogames.games import game_engine, load_game
from metrogames.games.metro import (
    DRAW,
    HIDDEN,
    MetroAction,
    MetroGame,
    MetroOptions,
    MetroPlay,
    MetroState,
    metro_record,
    read_metro_record,
    replay_metro_record,
)

RAW = load_json("metro.json")
CODES = [t["code"] for t in RAW["tile_types"]]
COUNTS = {t["code"]: t["count"] for t in RAW["tile_types"]}
MODES = ("draw", "hand", "official-hand")
COLUMNS = "ABCDEFGH"


def random_states(game: MetroGame, seed: int) -> Iterator[MetroState]:
    """Every state of one random game (new states: ``apply``), the deal first."""
    state = game.new_game(seed)
    rng = Rng(seed, "protocol test")
    yield state
    while not state.is_over():
        (player,) = state.to_move()
        state = state.apply(player, rng.choice(state.legal_actions(player)))
        yield state


def all_games() -> Iterator[MetroGame]:
    """Every turn mode and one-tile option, players 2–6 spread over them."""
    for mode in MODES:
        for forbid, counts in (("allowed", (2, 4, 6)), ("forbidden", (3, 5))):
            for n in counts:
                yield MetroGame(n, MetroOptions(mode, forbid))


# -- dense indices ---------------------------------------------------------------------------
def test_action_index_covers_the_whole_range() -> None:
    game = MetroGame(2)
    assert game.num_distinct_actions == 24 * 64 + 1 == 1537
    for i in range(1536):
        tile, square = divmod(i, 64)
        expected = MetroAction(square, CODES[tile])
        assert game.action_from_index(i) == expected
        assert game.action_index(expected) == i
    assert game.action_from_index(1536) == DRAW and game.action_index(DRAW) == 1536


@pytest.mark.parametrize("index", [-1, 1537, True, 3.0, "5", None])
def test_action_from_index_refuses_out_of_range(index: object) -> None:
    with pytest.raises(NotationError, match="index"):
        MetroGame(2).action_from_index(index)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("action", "match"),
    [
        (MetroAction(34), "tile must be named"),
        (MetroAction(34, "zzzz"), "unknown Metro tile"),
        (MetroAction(34, "CBAA"), "unknown Metro tile"),
        (MetroAction(64, "cbaa"), "no square"),
        (MetroAction(-1, "cbaa"), "no square"),
        ("cbaa", "not a Metro player action"),
        (None, "not a Metro player action"),
    ],
)
def test_action_index_refuses_what_has_no_index(action: object, match: str) -> None:
    with pytest.raises(NotationError, match=match):
        MetroGame(2).action_index(action)  # type: ignore[arg-type]


def test_every_legal_action_of_random_games_has_its_own_index() -> None:
    for k, game in enumerate(all_games()):
        for state in random_states(game, 100 + k):
            for player in state.to_move() - {CHANCE}:
                actions = state.legal_actions(player)
                indices = [game.action_index(a) for a in actions]
                assert len(set(indices)) == len(actions)
                assert [game.action_from_index(i) for i in indices] == actions


def test_chance_outcome_index_is_the_data_file_order() -> None:
    game = MetroGame(4)
    assert game.max_chance_outcomes == len(CODES) == 24
    for i, code in enumerate(CODES):
        assert game.chance_outcome_index(code) == i
        assert game.chance_outcome_from_index(i) == code
    for bad in ("zzzz", "CBAA", "", None, MetroAction(0, "aaaa")):
        with pytest.raises(NotationError, match="chance outcome"):
            game.chance_outcome_index(bad)  # type: ignore[arg-type]
    for index in (-1, 24, False, "0"):
        with pytest.raises(NotationError, match="index"):
            game.chance_outcome_from_index(index)  # type: ignore[arg-type]
    assert game.pass_action is None


# -- chance outcomes -------------------------------------------------------------------------
def unseen_by_counting(state: MetroState) -> Counter[str]:
    """Copies per code (data file) minus the board, the visible hand tiles and the drawn tile."""
    left = Counter(COUNTS)
    for sq in range(64):
        code = state.board.tile_at(sq)
        if code:
            left[code] -= 1
    for p in range(state.num_players):
        left.subtract(c for c in state.hand(p) if c != HIDDEN)
    if state.drawn_tile:
        left[state.drawn_tile] -= 1
    return +left


def test_chance_outcomes_are_exact_counts_in_data_order() -> None:
    checked = 0
    for k, game in enumerate(all_games()):
        for state in random_states(game, 200 + k):
            if state.to_move() != {CHANCE}:
                assert state.chance_outcomes() == []
                continue
            assert state.chance_outcomes() == [(state.known_pile()[0], 1.0)]
            for seen in [state.view(p) for p in range(game.players)] + [state.view(None)]:
                outcomes = seen.chance_outcomes()
                left = unseen_by_counting(seen)
                total = sum(left.values())
                assert outcomes == [(c, left[c] / total) for c in CODES if left[c]]
                assert math.fsum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
                assert [c for c, _ in outcomes] == seen.legal_actions(CHANCE)
                checked += 1
    assert checked > 1000


def test_chance_outcomes_of_an_unknown_pile() -> None:
    state = MetroGame(2).from_pile(None)  # draws are chosen by the caller
    outcomes = state.chance_outcomes()
    assert outcomes == [(c, COUNTS[c] / 60) for c in CODES]
    state.apply_in_place(CHANCE, "cccc")
    state.apply_in_place(0, MetroAction(0, "cccc"))
    after = dict(state.chance_outcomes())
    assert after["cccc"] == (COUNTS["cccc"] - 1) / 59 and after["aaaa"] == COUNTS["aaaa"] / 59


# -- legality --------------------------------------------------------------------------------
def sample(rng: Rng, items: list[MetroPlay], k: int) -> list[MetroPlay]:
    """``k`` distinct items, uniformly: the first ``k`` steps of a Fisher–Yates shuffle (a
    whole shuffle of ``items`` per state would cost more than the checks)."""
    pool = items[:]
    for i in range(k):
        j = i + rng.below(len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def test_is_legal_agrees_with_legal_actions_and_apply() -> None:
    game_list = list(all_games())
    everything: list[MetroPlay] = [MetroGame(2).action_from_index(i) for i in range(1537)]
    everything += CODES
    everything += [MetroAction(sq) for sq in range(64)]
    for k, game in enumerate(game_list):
        rng = Rng(k, "is_legal sample")
        for step, state in enumerate(random_states(game, 300 + k)):
            if step % 10:
                continue
            for player in (CHANCE, *range(game.players)):
                legal = set(state.legal_actions(player))
                for action in everything:
                    if state.is_legal(player, action) != (action in legal):
                        # only the draw-mode shorthand is legal without being listed
                        assert isinstance(action, MetroAction) and action.tile is None
                        filled = MetroAction(action.square, state.drawn_tile)
                        assert state.is_legal(player, action) == (filled in legal)
                for action in sample(rng, everything, 12):
                    try:
                        state.apply(player, action)
                        applied = True
                    except IllegalActionError:
                        applied = False
                    assert state.is_legal(player, action) == applied


GARBAGE: list[object] = [
    None, 5, 3.5, "", "x" * 1000, "CBAA", [1], {"square": "C5"}, b"aaaa", object(),
    MetroAction(99, "zzzz"), MetroAction("C5"), MetroAction(0, 7),  # type: ignore[arg-type]
    MetroAction(-1, "aaaa"), MetroAction(True, "aaaa"),  # type: ignore[arg-type]
    MetroAction(27, "aaaa"),  # D4, a central square
]  # fmt: skip


def test_is_legal_never_raises() -> None:
    game = MetroGame(3, MetroOptions("official-hand"))
    states = list(random_states(game, 9))
    for state in [*states[::10], states[-1]]:
        for seen in (state, state.view(0), state.view(None)):
            for player in (CHANCE, 0, 1, 2, 7, -9, None, "0", True, 1.0, [0]):
                for action in GARBAGE:
                    assert seen.is_legal(player, action) is False  # type: ignore[arg-type]


def test_is_legal_in_a_view_judges_what_it_shows() -> None:
    state = MetroGame(2, MetroOptions("hand")).new_game(3)
    for _ in range(3):  # deal two, then draw for player 0
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    own, other = state.view(0), state.view(1)
    for action in state.legal_actions(0):
        assert own.is_legal(0, action) and not other.is_legal(0, action)
    with pytest.raises(IllegalActionError, match="hidden-information"):
        own.apply(0, state.legal_actions(0)[0])


# -- views and resampling --------------------------------------------------------------------
def test_views_hide_the_hands_and_the_pile_order_and_nothing_else() -> None:
    for k, game in enumerate(all_games()):
        n = game.players
        for state in random_states(game, 400 + k):
            for seat in (*range(n), None):
                seen = state.view(seat)
                assert seen.viewer == (SPECTATOR if seat is None else seat)
                assert seen.seed is None and seen.known_pile() == []
                for p in range(n):
                    hand = state.hand(p)
                    assert seen.hand(p) == (hand if p == seat else (HIDDEN,) * len(hand))
                same = ("to_move", "scores", "longest_routes", "routes", "winners", "is_over")
                for name in same:
                    assert getattr(seen, name)() == getattr(state, name)()
                for name in ("drawn_tile", "drawn_count", "dealt", "current", "phase", "turn"):
                    assert getattr(seen, name) == getattr(state, name)
                assert bytes(seen.board.tiles) == bytes(state.board.tiles)
                history = state.history()
                shown = seen.history()
                assert len(shown) == len(history)
                for (who, action), (who2, action2) in zip(history, shown, strict=True):
                    assert who == who2 and action2 in (action, HIDDEN)
                    if action2 == HIDDEN:  # only draws into another seat's hand
                        assert who == CHANCE and game.options.hand
                actor = state.to_move_player()
                if actor >= 0:  # a drawn tile is face up; a held one only for its owner
                    if actor == seat or state.drawn_tile is not None:
                        assert seen.legal_actions(actor) == state.legal_actions(actor)
                    else:
                        assert seen.legal_actions(actor) == []


def test_a_views_view_only_hides_more() -> None:
    state = MetroGame(3, MetroOptions("hand")).new_game(2)
    for _ in range(5):
        (p,) = state.to_move()
        state.apply_in_place(p, state.legal_actions(p)[0])
    own = state.view(1)
    assert own.view(1).snapshot() == own.snapshot()
    assert own.view(None).snapshot() == state.view(None).snapshot()
    with pytest.raises(ValueError, match="player 1's view"):
        own.view(2)
    with pytest.raises(ValueError, match="spectator's view"):
        state.view(None).view(0)
    for bad in (3, -1, SPECTATOR, True, "0"):
        with pytest.raises(ValueError, match="no player"):
            state.view(bad)  # type: ignore[arg-type]


def test_resample_is_consistent_with_the_view_and_plays_to_the_end() -> None:
    for k, game in enumerate(all_games()):
        n = game.players
        states = list(random_states(game, 500 + k))
        for step, state in enumerate(states):
            if step % 9 or state.is_over():
                continue
            seat = step % n
            view = state.view(seat)
            rng_seed = 1000 * k + step
            full = view.resample(seat, Rng(rng_seed, "resample"))
            # the same from the full state itself
            assert state.resample(seat, Rng(rng_seed, "resample")).snapshot() == full.snapshot()
            assert full.viewer is None and full.seed is None
            assert bytes(full.board.tiles) == bytes(state.board.tiles)
            assert full.hand(seat) == state.hand(seat)
            assert [len(full.hand(p)) for p in range(n)] == [len(state.hand(p)) for p in range(n)]
            for name in ("to_move", "scores", "routes"):
                assert getattr(full, name)() == getattr(state, name)()
            assert full.drawn_tile == state.drawn_tile
            hidden = Counter(full.known_pile())
            for p in range(n):
                if p != seat:
                    hidden.update(full.hand(p))
            assert hidden == unseen_by_counting(view)
            assert len(full.known_pile()) == full.pile_size
            rng = Rng(rng_seed, "playout")
            while not full.is_over():
                (p,) = full.to_move()
                full.apply_in_place(p, rng.choice(full.legal_actions(p)), check=True)
            assert sorted(full.recount()[0]) == sorted(full.scores())


def test_resample_refuses_another_seats_view() -> None:
    state = MetroGame(3, MetroOptions("hand")).new_game(4)
    rng = Rng(1)
    with pytest.raises(ValueError, match="player 0's view"):
        state.view(0).resample(1, rng)
    with pytest.raises(ValueError, match="spectator's view"):
        state.view(None).resample(0, rng)
    for bad in (3, -1, None):
        with pytest.raises(ValueError, match="no player"):
            state.resample(bad, rng)  # type: ignore[arg-type]


# -- scores and routes -----------------------------------------------------------------------
def test_last_completed_is_what_the_last_placement_added() -> None:
    for k, game in enumerate(all_games()):
        before = game.new_game(600 + k)
        assert before.last_completed() == []
        last: list[object] = []
        for state in random_states(game, 600 + k):
            placed = state.board.placed != before.board.placed
            if placed:
                last = state.routes()[len(before.routes()) :]
            assert state.last_completed() == last
            before = state
        assert any(state.last_completed() for state in random_states(game, 600 + k))


def test_score_components_are_the_routes_points() -> None:
    for k, game in enumerate(all_games()):
        *_, final = random_states(game, 700 + k)
        for p in range(game.players):
            mine = [r for r in final.routes() if r.player == p]
            assert final.score_components(p) == {
                "longest_route": max((r.tiles for r in mine), default=0),
                "total": sum(2 * r.tiles if r.central else r.tiles for r in mine),
            }
        with pytest.raises(ValueError, match="no player"):
            final.score_components(game.players)


# -- the game value --------------------------------------------------------------------------
def test_options_json_gives_the_options_back() -> None:
    assert MetroGame(2).options_json() == {}
    assert MetroGame(2, MetroOptions("hand")).options_json() == {"turn_mode": "hand"}
    both = MetroOptions("official-hand", "forbidden")
    assert MetroGame(5, both).options_json() == {
        "turn_mode": "official-hand",
        "one_tile_routes": "forbidden",
    }
    for mode in MODES:
        for forbid in ("allowed", "forbidden"):
            options = MetroOptions(mode, forbid)
            game = MetroGame(3, options)
            assert MetroOptions.from_json(game.options_json()) == options
            assert hash(game) == hash(MetroGame(3, MetroOptions(mode, forbid)))


@pytest.mark.parametrize("players", [0, 1, 7, True, 2.0, "2"])
def test_player_counts_outside_2_to_6_are_option_errors(players: object) -> None:
    with pytest.raises(OptionError, match="2 to 6 players"):
        MetroGame(players)  # type: ignore[arg-type]


def test_to_record_wraps_metro_record() -> None:
    game = MetroGame(3)
    *_, state = random_states(game, 8)
    names = ["Ada", "Bo", "Cy"]
    record = game.to_record(state, names)
    assert record == metro_record(state, names, include_seed=False)
    seeded = game.to_record(state, names, seed=8, reveal=True)
    assert list(seeded)[:5] == ["format", "game", "players", "seed", "options"]
    assert seeded["seed"] == 8 and seeded["tiles"] == game.pile_for(8)
    assert replay_metro_record(seeded).scores() == state.scores()
    with pytest.raises(RecordError, match="seed 9"):
        game.to_record(state, names, seed=9)
    assert game.deal_record(8)["tiles"] == game.pile_for(8)
    assert read_metro_record(game.deal_record(8)).seed == 8


def test_to_record_of_a_view_in_progress() -> None:
    draw = MetroGame(2)
    state = draw.new_game(5)
    for _ in range(7):
        (p,) = state.to_move()
        state.apply_in_place(p, state.legal_actions(p)[0])
    public = draw.to_record(state.view(None), ["a", "b"])
    assert public == draw.to_record(state, ["a", "b"])  # draw mode: every draw is public
    with pytest.raises(RecordError, match="does not know the pile"):
        draw.to_record(state.view(None), ["a", "b"], reveal=True)
    hand = MetroGame(2, MetroOptions("hand"))
    state = hand.new_game(5)
    for _ in range(7):
        (p,) = state.to_move()
        state.apply_in_place(p, state.legal_actions(p)[0])
    for seen in (state.view(None), state.view(0), state.resample(0, Rng(3))):
        with pytest.raises(RecordError, match="hides tiles"):
            hand.to_record(seen, ["a", "b"])
    snap = hand.from_snapshot(state.snapshot())
    with pytest.raises(RecordError, match="snapshot"):
        hand.to_record(snap, ["a", "b"])
    (p,) = snap.to_move()
    snap.apply_in_place(p, snap.legal_actions(p)[0])
    with pytest.raises(RecordError, match="snapshot"):
        hand.to_record(snap, ["a", "b"])
    with pytest.raises(RecordError, match="not a state of this game"):
        draw.to_record(state, ["a", "b"])


# -- notation --------------------------------------------------------------------------------
def test_the_short_form_names_the_drawn_tile() -> None:
    game = MetroGame(2)
    state = game.new_game(6)
    state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    code = state.drawn_tile
    assert code is not None
    legal = state.legal_actions(0)
    for action in legal:
        sq = action.square  # type: ignore[union-attr]
        name = f"{COLUMNS[sq % 8]}{sq // 8 + 1}"
        assert state.string_to_action(0, name) == action
        assert state.string_to_action(0, f"{code.upper()} {name.lower()}") == action
        assert state.action_from_json(0, {"square": name}) == action
        assert state.action_to_string(0, action) == f"{code} {name}"
        assert state.action_to_json(0, action) == {"square": name, "tile": code}
        assert state.action_from_json(0, state.action_to_json(0, action)) == action
    # not the drawer's turn: the shorthand stays a shorthand
    assert state.string_to_action(1, "A1") == MetroAction(0)
    assert state.string_to_action(0, "draw") == DRAW


def test_chance_notation_is_the_tile_code() -> None:
    state = MetroGame(2, MetroOptions("hand")).new_game(1)
    for code in CODES:
        assert state.string_to_action(CHANCE, code.upper()) == code
        assert state.action_to_string(CHANCE, code) == code
        assert state.action_to_json(CHANCE, code) == code
        assert state.action_from_json(CHANCE, code) == code
    for bad in ("zzzz", "C5", ""):
        with pytest.raises(NotationError, match="tile"):
            state.string_to_action(CHANCE, bad)
    for value in ("zzzz", "CBAA", MetroAction(0, "aaaa"), None):
        with pytest.raises(NotationError, match="tile type code"):
            state.action_to_string(CHANCE, value)  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="tile"):
        state.action_from_json(CHANCE, 5)
    with pytest.raises(NotationError, match="not a Metro player action"):
        state.action_to_string(0, "cbaa")
    with pytest.raises(NotationError, match="not a Metro player action"):
        state.action_to_json(0, "cbaa")
    with pytest.raises(NotationError):
        state.string_to_action(0, "cbaa C5 D6")


def test_view_json_trains_give_the_exact_track_end() -> None:
    """Each waiting train's ``endpoint`` (0–7, the board's numbering): at the start, the edge
    station's own departure end on its square; after a tile, the end it has reached."""
    engine = game_engine("metro")
    assert isinstance(engine, Boards)
    stations = {s["number"]: s for s in engine.board_json()["stations"]}  # type: ignore[union-attr, index]
    state = load_game("metro", 2).new_game(1)
    assert isinstance(state, Presented)
    trains = state.view(0).view_json(0)["trains"]  # type: ignore[index]
    assert len(trains) == 32
    for train in trains:
        station = stations[train["station"]]
        assert (train["square"], train["side"], train["endpoint"]) == (
            station["square"], station["side"], station["departure"]
        )  # fmt: skip
    while CHANCE in state.to_move():
        state.apply_in_place(CHANCE, state.chance_outcomes()[0][0])
    player = next(iter(state.to_move()))
    state.apply_in_place(player, state.legal_actions(player)[0])
    moved = [t for t in state.view_json(None)["trains"] if t["tiles"]]  # type: ignore[index]
    assert moved
    for train in moved:
        ends = {"north": (0, 1), "east": (2, 3), "south": (4, 5), "west": (6, 7)}[train["side"]]
        assert train["endpoint"] in ends
