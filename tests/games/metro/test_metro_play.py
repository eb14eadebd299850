"""Random Metro games for every player count and turn mode (docs/engine-rules-metro.md, whole game).

After every step: the actor is the one in ``to_move``, its legal actions apply cleanly, the
incremental scores equal a full recount; at some steps the legal actions equal a brute-force
search over every square, ``apply`` leaves the old state unchanged, and a player's view hides
what it must. At the end every route is complete, and the record replays exactly and
round-trips through JSON.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from metrogames.core.errors import IllegalActionError
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games.metro import (
    DRAW,
    HIDDEN,
    MetroAction,
    MetroGame,
    MetroOptions,
    MetroState,
    load_metro,
    metro_record,
    replay_metro_record,
)

DATA = load_metro()
MODES = ("draw", "hand", "official-hand")
GAMES_PER_CASE = 8


def brute_force_actions(state: MetroState, player: int) -> set[MetroAction]:
    """Every placement (all 64 squares x every tile the player may play) that ``apply``
    accepts, plus DRAW if accepted."""
    tiles = set(state.hand(player))
    if state.drawn_tile is not None:
        tiles = {state.drawn_tile}
    out = set()
    for code in tiles:
        for sq in range(64):
            action = MetroAction(sq, code)
            try:
                state.apply(player, action)
            except IllegalActionError:
                continue
            out.add(action)
    try:
        state.apply(player, DRAW)
        out.add(DRAW)
    except IllegalActionError:
        pass
    return out


def snapshot(state: MetroState) -> tuple[object, ...]:
    return (
        bytes(state.board.tiles),
        state.scores(),
        len(state.history()),
        state.to_move(),
        tuple(state.hand(p) for p in range(state.num_players)),
        state.drawn_tile,
        state.drawn_count,
    )


def check_view(state: MetroState, viewer: int, rng: Rng) -> None:
    """A view hides the others' tiles and the pile order; resample restores a full state."""
    view = state.view(viewer)
    n = state.num_players
    for p in range(n):
        if p == viewer:
            assert view.hand(p) == state.hand(p)
        else:
            assert view.hand(p) == (HIDDEN,) * len(state.hand(p))
    assert view.known_pile() == []
    assert bytes(view.board.tiles) == bytes(state.board.tiles)
    private_to_others = sum(1 for who, a in view.history() if who == CHANCE and a == HIDDEN)
    if state.game.options.turn_mode == "draw":
        assert private_to_others == 0
    # what the viewer cannot see = the pile + the others' hands
    others = Counter(t for p in range(n) if p != viewer for t in state.hand(p))
    pile = Counter(state.known_pile())
    assert Counter(view.unseen_tiles()) == others + pile
    with pytest.raises(IllegalActionError) as info:
        view.apply(state.to_move_player(), (view.legal_actions(CHANCE) or ["aaaa"])[0])
    assert info.value.reason in ("hidden-information", "game-over")
    if state.is_over():
        return
    full = view.resample(viewer, rng)
    assert full.viewer is None and full.hand(viewer) == state.hand(viewer)
    assert [len(full.hand(p)) for p in range(n)] == [len(state.hand(p)) for p in range(n)]
    everything = (
        Counter(full.known_pile())
        + Counter(t for p in range(n) for t in full.hand(p))
        + Counter(t for t in (full.board.tile_at(sq) for sq in range(64)) if t)
    )
    if full.drawn_tile:
        everything[full.drawn_tile] += 1
    assert everything == dict(zip(DATA.tile_codes, DATA.tile_counts, strict=True))
    if viewer == state.to_move_player():
        assert set(full.legal_actions(viewer)) == set(state.legal_actions(viewer))


def assert_same_game(replayed: MetroState, state: MetroState) -> None:
    """Replay is exact: same position and same record; the same history too, except that in
    official-hand mode "draw X, place X" and "place the held X, draw X" are one record
    (spec: "the same when both tiles are of one type")."""
    assert snapshot(replayed)[:2] == snapshot(state)[:2]
    assert snapshot(replayed)[3:] == snapshot(state)[3:]
    assert metro_record(replayed) == metro_record(state)
    assert replayed.routes() == state.routes()
    if state.game.options.turn_mode != "official-hand":
        assert replayed.history() == state.history()


def play_checked(game: MetroGame, seed: int) -> MetroState:
    rng = Rng(seed, "test-policy")
    state = game.new_game(seed)
    pile = game.pile_for(seed)
    mid_record = None
    step = 0
    while not state.is_over():
        actor = state.to_move_player()
        assert state.to_move() == frozenset({actor})
        actions = state.legal_actions(actor)
        assert actions, f"no legal action at step {step}"
        if actor == CHANCE:
            assert actions == [pile[state.drawn_count]]
            action = actions[0]
        else:
            assert all(state.legal_actions(p) == [] for p in range(-1, game.players) if p != actor)
            if step % 23 == 5:
                assert set(actions) == brute_force_actions(state, actor)
            action = actions[rng.below(len(actions))]
        if step % 17 == 3:
            before = snapshot(state)
            nxt = state.apply(actor, action)
            assert snapshot(state) == before  # apply returns a new state
            state.apply_in_place(actor, action)
            assert snapshot(nxt) == snapshot(state)
        else:
            state.apply_in_place(actor, action, check=step % 2 == 0)
        scores, longest, routes = state.recount()
        assert state.scores() == scores
        assert state.longest_routes() == longest
        assert sorted(state.routes(), key=lambda r: r.station) == routes
        if step % 29 == 11:
            check_view(state, step % game.players, rng)
        pending_draw = game.options.turn_mode == "official-hand" and (
            state.drawn_tile is not None or state.history()[-1][1] == DRAW
        )
        if step >= 50 and mid_record is None and not pending_draw:
            # (a record lists placements only: it cannot stop between DRAW and its placement)
            mid_record = metro_record(state)
            assert "seed" not in mid_record  # in progress: no seed
            replayed = replay_metro_record(json.loads(json.dumps(mid_record)))
            assert_same_game(replayed, state)
        step += 1
    assert mid_record is not None
    return state


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games(players: int, mode: str) -> None:
    for i in range(GAMES_PER_CASE):
        forbid = "forbidden" if i % 2 else "allowed"
        game = MetroGame(players, MetroOptions(turn_mode=mode, one_tile_routes=forbid))
        seed = 1000 * players + 17 * i + MODES.index(mode)
        state = play_checked(game, seed)
        # end: every route complete and scored; no train waits
        assert state.board.placed == 60 and state.board.waiting == {}
        routes = state.routes()
        assert len(routes) == 32
        totals = [0] * players
        for r in routes:
            if r.player is not None:
                totals[r.player] += r.points
        assert totals == state.scores()
        assert all(state.hand(p) == () for p in range(players))
        winners = state.winners()
        best = max(state.scores())
        assert winners and all(state.scores()[w] == best for w in winners)
        check_view(state, 0, Rng(seed, "view"))
        # the record replays exactly and round-trips through JSON
        names = [f"p{k}" for k in range(players)]
        record = metro_record(state, names, meta={"note": ["free", {"form": 1}]})
        assert record["seed"] == seed and len(record["tiles"]) == 60
        assert len(record["turns"]) == 60
        text = json.dumps(record)
        replayed = replay_metro_record(json.loads(text))
        assert_same_game(replayed, state)
        assert replayed.scores() == state.scores()
        assert replayed.winners() == winners
        assert bytes(replayed.board.tiles) == bytes(state.board.tiles)
        assert metro_record(replayed, names, meta=record["meta"]) == record


def test_view_during_hand_game_hides_private_draws() -> None:
    """Hand mode: the deal and each draw go to one player's hand; others see "?"."""
    game = MetroGame(3, MetroOptions(turn_mode="hand"))
    state = game.new_game(11)
    for _ in range(4):  # deal 3, then player 0's draw
        state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    view = state.view(1)
    draws = [a for who, a in view.history() if who == CHANCE]
    assert draws[1] == state.hand(1)[0]
    assert draws[0] == draws[2] == draws[3] == HIDDEN
    assert view.hand(0) == (HIDDEN, HIDDEN)
    assert view.legal_actions(0) == []  # player 0's tiles are hidden from player 1
    assert view.seed is None
    own = state.view(0)
    assert set(own.legal_actions(0)) == set(state.legal_actions(0))
    with pytest.raises(ValueError):
        metro_record(view)


def test_draw_mode_view_hides_only_the_pile() -> None:
    state = MetroGame(2).new_game(4)
    state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0])
    view = state.view(1)
    assert view.history() == state.history()
    assert view.drawn_tile == state.drawn_tile
    assert set(view.legal_actions(0)) == set(state.legal_actions(0))
    assert len(view.legal_actions(CHANCE)) == 0  # player 0 must place first
    assert view.known_pile() == [] and len(state.known_pile()) == 59


def test_golden_playthroughs() -> None:
    """Fixed seed, middle-action policy: the final scores are pinned per mode."""
    expected = {
        ("draw", 2): [82, 112],
        ("draw", 6): [33, 19, 47, 15, 41, 27],
        ("hand", 2): [88, 110],
        ("hand", 6): [36, 38, 22, 69, 14, 21],
        ("official-hand", 2): [104, 89],
        ("official-hand", 6): [49, 18, 49, 31, 22, 21],
    }
    for (mode, n), scores in expected.items():
        state = MetroGame(n, MetroOptions(turn_mode=mode)).new_game(7)
        while not state.is_over():
            p = state.to_move_player()
            acts = state.legal_actions(p)
            state.apply_in_place(p, acts[0] if p == CHANCE else acts[len(acts) // 2])
        assert state.scores() == scores, (mode, n)
