"""Random London playouts: every legal action applies, the legal actions are exactly those a
brute-force enumeration finds (as Paris's playouts check), incremental scores equal a recount from
scratch, records round-trip and replay exactly (issue: "Tests", random playouts)."""

from __future__ import annotations

import json
from collections import Counter

from metrogames.core.errors import IllegalActionError
from metrogames.core.protocol import CHANCE
from metrogames.core.rng import Rng
from metrogames.games.nextstation.actions import (
    CIRCLE_POWER,
    PASS,
    POWERS_IN_ACTION,
    TurnAction,
)
from metrogames.games.nextstation.board import PlayerMap
from metrogames.games.nextstation.citymap import load_city
from metrogames.games.nextstation.deal import Options
from metrogames.games.nextstation.record import parse_record, replay, to_record
from metrogames.games.nextstation.sheet import score_sheet, sheet_of
from metrogames.games.nextstation.state import NextStationGame, NextStationState

TOURIST_TABLE = [0, 1, 2, 4, 6, 8, 11, 14, 17, 21, 25]


def naive_total(state: NextStationState, player: int) -> int:
    """A recount from scratch by station names, independent of the engine's bitset scoring."""
    city = state.city
    board = state.maps[player]
    total = 0
    boxes = 0
    on_lines: dict[str, int] = {}
    thames = {
        tuple(sorted(city.link_name(j).split("-")))
        for j in range(len(city.links))
        if (city.river_mask >> j) & 1
    }
    for c in range(4):
        sections = [
            city.link_name(j).split("-")
            for j in range(len(city.links))
            if (board.sections[c] >> j) & 1
        ]
        if not sections:
            continue
        stations = {s for pair in sections for s in pair}
        per_district: dict[str, int] = {}
        for s in stations:
            d = city.districts[city.stations[city.station(s)].district].name
            per_district[d] = per_district.get(d, 0) + 1
            on_lines[s] = on_lines.get(s, 0) + 1
        if board.circled[c] >= 0:
            d = city.districts[city.stations[board.circled[c]].district].name
            per_district[d] += 1
        crossings = sum(1 for pair in sections if tuple(sorted(pair)) in thames)
        total += len(per_district) * max(per_district.values()) + 2 * crossings
        boxes += sum(1 for s in stations if city.stations[city.station(s)].tourist_site)
    total += TOURIST_TABLE[min(boxes, 10)]
    total += sum({2: 2, 3: 5, 4: 9}.get(n, 0) for n in on_lines.values())
    for objective in state.deal.objectives:
        total += 10 * state.breakdown(player).objectives[objective]
    return total


def play_random(state: NextStationState, rng: Rng, check_all: bool) -> NextStationState:
    while not state.is_over():
        movers = state.to_move()
        if CHANCE in movers:
            state = state.apply(CHANCE, state.legal_actions(CHANCE)[0])
            continue
        for p in sorted(movers):
            legal = state.legal_actions(p)
            if check_all:
                for action in legal:
                    state.apply(p, action)  # must not raise
            state = state.apply(p, rng.choice(legal))
        if (check_all and CHANCE in state.to_move()) or state.is_over():
            for p in range(state.num_players):
                assert state.breakdown(p).total == naive_total(state, p)
    return state


def check_finished(state: NextStationState, names: list[str], seed: int) -> None:
    for p in range(state.num_players):
        _, sheet = score_sheet(
            json.loads(json.dumps(sheet_of(state.city, state.maps[p], state.deal.objectives)))
        )
        assert sheet.total == state.scores()[p] == naive_total(state, p)
        assert [ls.score for ls in sheet.lines.values()] == [
            ls.score for ls in state.line_scores[p]
        ]
    record = to_record(state, names, seed=seed, reveal_decks=True)
    text = json.dumps(record)
    again = replay(parse_record(json.loads(text)))
    assert again.is_over() and again.scores() == state.scores()
    assert again.winners() == state.winners()
    assert to_record(again, names, seed=seed, reveal_decks=True) == record


def test_thousands_of_solo_random_playouts_recount_and_replay():
    """2,000 seeded solo games: final score = recount from the sheet and by names; the record
    round-trips through JSON and replays to the same record."""
    game = NextStationGame("london", 1)
    for seed in range(2000):
        state = game.new_game(seed)
        state.random_playout([Rng(seed, "test")])
        check_finished(state, ["solo"], seed)


def test_module_games_every_legal_action_applies_every_step():
    """Games with both modules and 1-4 players: after every step every legal action applies
    with the checked path, and the incremental score equals a recount."""
    for seed in range(120):
        players = 1 + seed % 4
        options = Options("random", "random")
        state = NextStationGame("london", players, options).new_game(seed)
        state = play_random(state, Rng(seed, "modules"), check_all=True)
        check_finished(state, [f"p{i}" for i in range(players)], seed)


def test_in_progress_records_replay_to_the_same_point():
    """A record may stop before the end: it replays to the same point."""
    for seed in range(40):
        state = NextStationGame("london", 2).new_game(seed)
        rng = Rng(seed, "cut")
        stop = 5 + rng.below(60)
        steps = 0
        while not state.is_over() and steps < stop:
            movers = sorted(state.to_move())
            p = movers[0]
            state = state.apply(p, rng.choice(state.legal_actions(p)))
            steps += 1
        record = to_record(state, ["a", "b"], seed=seed)
        again = replay(parse_record(json.loads(json.dumps(record))))
        assert again.round == state.round and again.flipped == state.flipped
        assert again.to_move() == state.to_move()
        assert [m.drawn for m in again.maps] == [m.drawn for m in state.maps]


# -- every legal action, by brute force ----------------------------------------------------------
LONDON = load_city("london")
DIRECTED = [(a, b) for a, b in LONDON.links] + [(b, a) for a, b in LONDON.links]
"""Every section the map data allows, in both directions (the candidates: not the engine's own
move generator, which chooses among them by the rules)."""
POWERS = (None, *POWERS_IN_ACTION)
"""No power, and each power written with ``+power`` (joker, switch, double-section)."""
STATIONS = range(len(LONDON.stations))


def snapshot(state: NextStationState) -> tuple[object, ...]:
    """Every slot of ``state``, its maps by their slots: equal exactly when nothing changed."""
    maps = tuple(tuple(getattr(m, n) for n in PlayerMap.__slots__) for m in state.maps)
    return (maps, *(getattr(state, n) for n in NextStationState.__slots__ if n != "maps"))


class Trial:
    """Tries actions with ``apply_in_place`` on one copy of a position: a refusal leaves the
    state unchanged (``apply_in_place``'s contract, checked by :meth:`check_unchanged`), so
    the copy serves the next try and is replaced only after an accepted action — what
    ``state.apply`` (a fresh copy per action) decides, without a copy per refusal."""

    def __init__(self, state: NextStationState, player: int) -> None:
        self.state, self.player = state, player
        self.before = snapshot(state)
        self.copy = state.clone()

    def accepted(self, action: TurnAction) -> bool:
        """Whether ``apply`` takes ``action`` in the position."""
        try:
            self.copy.apply_in_place(self.player, action)
        except IllegalActionError:
            return False
        self.copy = self.state.clone()
        return True

    def check_unchanged(self) -> None:
        """The refusals changed neither the copy nor the position itself."""
        assert snapshot(self.copy) == snapshot(self.state) == self.before


def pencil_power(state: NextStationState, player: int) -> str | None:
    """The power of the pencil ``player`` draws with this round, from the deal (used or not)."""
    powers = state.deal.powers
    return None if powers is None else powers[state.colour(player)]


def brute_force_london(state: NextStationState, player: int) -> set[TurnAction]:
    """Every action ``state.apply`` accepts among all combinations of sections, powers and
    circles (tried by a :class:`Trial`).

    Candidates: ``pass``; each power with no section; every section of the map data in both
    directions, with no power and with the power of the pencil (the deal gives each pencil
    one: a power another pencil holds is never the player's to use); every station circled
    alone and, with the circle-station pencil, after each section the plain turn accepts (the
    circle is drawn after the turn's section); and, with the double-section pencil, every pair
    whose first section the plain turn accepts (a double's first section is drawn as the card
    says) and whose second is any section of the map data.
    """
    out: set[TurnAction] = set()
    trial = Trial(state, player)

    def keep(action: TurnAction) -> bool:
        if trial.accepted(action):
            out.add(action)
            return True
        return False

    for power in POWERS:
        keep(TurnAction((), power))
    plain = [sec for sec in DIRECTED if keep(TurnAction((sec,)))]
    pencil = pencil_power(state, player)
    if pencil in POWERS_IN_ACTION:
        for sec in DIRECTED:
            keep(TurnAction((sec,), pencil))
    for station in STATIONS:
        keep(TurnAction((), None, station))
        if pencil == CIRCLE_POWER:
            for sec in plain:
                keep(TurnAction((sec,), None, station))
    if pencil == "double-section":
        for first in plain:
            for second in DIRECTED:
                keep(TurnAction((first, second), "double-section"))
    trial.check_unchanged()
    return out


def brute_force_playout(
    players: int, seed: int, powers: bool, seen: Counter[str]
) -> NextStationState:
    """A seeded London game played with uniformly random non-pass actions (a pass only when
    nothing else is legal), the engine's legal actions checked against the brute force at
    every step of every player."""
    options = Options(powers="random") if powers else Options()
    state = NextStationGame("london", players, options).new_game(seed)
    rng = Rng(seed, "test-brute-force")
    while not state.is_over():
        movers = sorted(state.to_move())
        if movers == [CHANCE]:
            state.apply_in_place(CHANCE, state.legal_actions(CHANCE)[0], check=False)
            continue
        for p in movers:
            legal = state.legal_actions(p)
            assert legal[0] == PASS and len(set(legal)) == len(legal)
            brute = brute_force_london(state, p)
            missing, extra = brute - set(legal), set(legal) - brute
            assert not missing and not extra, (
                f"seed {seed}, round {state.round + 1}, turn {state.turn}, player {p}, "
                f"card {state.card}: missing {sorted(map(str, missing))[:5]}, "
                f"not accepted {sorted(map(str, extra))[:5]}"
            )
            seen["steps"] += 1
            seen["branch"] += state.branch
            seen["only-pass"] += len(legal) == 1
            for a in legal:
                seen[a.power or ("circle" if a.circle is not None else "plain")] += 1
                seen["circle-alone"] += a.circle is not None and not a.sections
            choices = legal[1:] or legal
            action = choices[rng.below(len(choices))]
            seen[f"played-{action.power or ('circle' if action.circle is not None else '')}"] += 1
            state.apply_in_place(p, action, check=False)
    return state


GAMES = [
    # (players, seed, powers)
    *((1, seed, False) for seed in range(4)),
    *((1, seed, True) for seed in range(4, 12)),
    (2, 12, False),
    (2, 13, True),
    (2, 14, True),
    (3, 15, True),
    (4, 16, True),
]


def test_london_legal_actions_equal_a_brute_force_enumeration() -> None:
    """At every step of seeded random London games (solo and 2-4 players, with and without the
    pencil powers), the engine's legal actions are exactly the actions ``apply`` accepts among
    all combinations of sections, powers and circles: none missing, none extra."""
    seen: Counter[str] = Counter()
    for players, seed, powers in GAMES:
        state = brute_force_playout(players, seed, powers, seen)
        check_finished(state, [f"p{i}" for i in range(players)], seed)
    for kind in ("joker", "switch", "double-section", "circle", "circle-alone"):
        assert seen[kind], f"no {kind} action was ever legal: {seen}"
    for kind in ("joker", "switch", "double-section", "circle"):
        assert seen[f"played-{kind}"], f"no {kind} action was ever played: {seen}"
    assert seen["branch"] and seen["only-pass"], seen
