"""Helpers for Next Station tests: states on chosen decks, moves in notation."""

from __future__ import annotations

from metrogames.core.protocol import CHANCE
from metrogames.games.nextstation.actions import parse_action
from metrogames.games.nextstation.citymap import CityMap, load_city
from metrogames.games.nextstation.deal import Deal, Options
from metrogames.games.nextstation.state import NextStationGame, NextStationState

LONDON = load_city("london")


def deck(*first: str, city: CityMap = LONDON) -> tuple[str, ...]:
    """A whole deck: ``first`` cards in order, then the rest in data order."""
    rest = [c.id for c in city.deck if c.id not in first]
    return (*first, *rest)


def london(
    players: int = 1,
    decks: list[tuple[str, ...]] | None = None,
    cycle: tuple[str, ...] = ("green", "blue", "pink", "purple"),
    powers: dict[str, str] | None = None,
    objectives: tuple[str, ...] = (),
) -> NextStationState:
    """A London game on chosen decks (default: data order) and colour cycle."""
    city = LONDON
    decks = decks or []
    all_decks = tuple(decks[r] if r < len(decks) else deck() for r in range(4))
    power_tuple = None if powers is None else tuple(powers[c] for c in city.colours)
    deal = Deal(tuple(city.colours.index(c) for c in cycle), objectives, power_tuple, all_decks)
    options = Options(objectives, power_tuple, cycle)
    return NextStationGame("london", players, options).from_deal(deal)


def flip(state: NextStationState, *cards: str) -> NextStationState:
    """Flip ``cards`` in order (checked)."""
    for card in cards:
        state = state.apply(CHANCE, card)
    return state


def flip_next(state: NextStationState) -> NextStationState:
    """Flip the deal's next card."""
    return state.apply(CHANCE, state.legal_actions(CHANCE)[0])


def play(state: NextStationState, player: int, text: str) -> NextStationState:
    """Apply the action typed as ``text`` for ``player`` (checked)."""
    return state.apply(player, parse_action(state.city, text))


def names(state: NextStationState, mask: int) -> set[str]:
    return set(state.city.names(mask))


def first(card: str, players: int = 1) -> NextStationState:
    """A London game (green first) after flipping ``card`` as the round's first card."""
    return flip(london(players=players, decks=[deck(card)]), card)
