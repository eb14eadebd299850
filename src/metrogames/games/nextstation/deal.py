"""Game options and the deal: what the seed decides before play.

Source: ``docs/engine-rules-london.md`` ("Colour rotation", "Advanced module 1", "Advanced
module 2") and ``docs/notation.md`` ("Options"). The deal for a seed never changes between
versions: each part is drawn from its own stream of :class:`~metrogames.core.rng.Rng`, and
golden tests pin it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from metrogames.core.errors import NotationError
from metrogames.core.protocol import JsonObject, is_object
from metrogames.core.rng import Rng
from metrogames.games.nextstation.citymap import CityMap
from metrogames.games.nextstation.words import term
from metrogames.i18n import N_, join, msg, plural

ROUNDS = 4
MAX_PLAYERS = 4
"""The most players a game takes."""
FIRST_EFFECTIVE_SWITCH = 3
"""A switch flipped 1st or 2nd in a round has no effect (rules, "A round", 3)."""


@dataclass(frozen=True)
class Options:
    """Next Station options as in the spec.

    Attributes:
        objectives: ``()``, two distinct objective ids, or ``"random"`` (2 drawn from the seed).
        powers: ``None``, a power id per colour (in the city's colour order), or ``"random"``.
        colour_cycle: the 4 colours in cyclic order, or ``None`` (drawn from the seed).
    """

    objectives: tuple[str, ...] | str = ()
    powers: tuple[str, ...] | str | None = None
    colour_cycle: tuple[str, ...] | None = None

    @classmethod
    def from_json(cls, city: CityMap, value: object) -> Options:
        """Read and validate the ``"options"`` object of a record or the command line.

        Raises:
            NotationError: unknown keys, wrong types, unknown or repeated ids or colours.
        """
        if value is None:
            value = {}
        if not is_object(value):
            raise NotationError(msg(N_("options must be an object")))
        allowed = {"objectives", "colour_cycle"} | ({"powers"} if city.powers else set())
        unknown = set(value) - allowed
        if unknown:
            raise NotationError(
                plural(
                    "unknown option for {game}: {names}",
                    "unknown options for {game}: {names}",
                    len(unknown),
                    game=city.city,
                    names=", ".join(sorted(map(str, unknown)))[:80],
                )
            )
        return cls(
            _read_objectives(city, value.get("objectives", [])),
            _read_powers(city, value.get("powers")),
            _read_cycle(city, value.get("colour_cycle")),
        )


def _read_objectives(city: CityMap, raw: object) -> tuple[str, ...] | str:
    """The ``objectives`` option: ``"random"`` or 2 distinct ids of ``city`` (or none)."""
    objectives: tuple[str, ...] | str = ()
    if raw == "random":
        objectives = "random"
    elif isinstance(raw, list):
        if raw and len(raw) != 2:
            raise NotationError(
                msg(N_('objectives: give 2 distinct ids or "random", not {n}'), n=len(raw))
            )
        for o in raw:
            if o not in city.objectives:
                raise NotationError(
                    msg(
                        N_("unknown objective {id} (expected one of {known})"),
                        id=repr(o)[:40],
                        known=", ".join(city.objectives),
                    )
                )
        if len(set(raw)) != len(raw):
            raise NotationError(msg(N_("objectives: the two ids must differ")))
        objectives = tuple(raw)
    else:
        raise NotationError(msg(N_('objectives must be a list of ids or "random"')))
    return objectives


def _read_powers(city: CityMap, rawp: object) -> tuple[str, ...] | str | None:
    """The ``powers`` option: ``"random"``, a colour -> power object (a power per colour of
    ``city``, each once; read in ``city``'s colour order) or ``None``."""
    powers: tuple[str, ...] | str | None = None
    if rawp == "random":
        powers = "random"
    elif isinstance(rawp, dict):
        if set(rawp) != set(city.colours):
            raise NotationError(
                msg(
                    N_("powers: give one power for each of {colours}"),
                    colours=join([term(c) for c in city.colours]),
                )
            )
        for p in rawp.values():
            if p not in city.powers:
                raise NotationError(
                    msg(
                        N_("unknown power {id} (expected one of {known})"),
                        id=repr(p)[:40],
                        known=", ".join(city.powers),
                    )
                )
        if len(set(rawp.values())) != len(rawp):
            raise NotationError(msg(N_("powers: each colour needs a different power")))
        powers = tuple(rawp[c] for c in city.colours)
    elif rawp is not None:
        raise NotationError(
            msg(N_('powers must be null, an object colour → power, or "random"'))
        )
    return powers


def _read_cycle(city: CityMap, cycle: object) -> tuple[str, ...] | None:
    """The ``colour_cycle`` option: each colour of ``city`` once, or ``None``."""
    if cycle is None:
        return None
    if not isinstance(cycle, list) or sorted(map(str, cycle)) != sorted(city.colours):
        raise NotationError(
            msg(
                N_("colour_cycle must list each of {colours} once"),
                colours=join([term(c) for c in city.colours]),
            )
        )
    return tuple(cycle)


@dataclass(frozen=True)
class Deal:
    """Everything chance decides in a game, resolved.

    Attributes:
        colour_cycle: colour indices in cyclic order (4).
        objectives: the objective ids in play (0 or 2).
        powers: a power id per colour index, or ``None`` without the module.
        decks: per round, the 11 card ids in flip order, or ``None`` where unknown (a record
            without seed; chance actions then come from outside).
    """

    colour_cycle: tuple[int, ...]
    objectives: tuple[str, ...]
    powers: tuple[str, ...] | None
    decks: tuple[tuple[str, ...] | None, ...]

    def options_json(self, city: CityMap) -> JsonObject:
        """The resolved ``"options"`` object a record holds."""
        out: JsonObject = {"objectives": list(self.objectives)}
        if city.powers:
            out["powers"] = (
                None
                if self.powers is None
                else {c: p for c, p in zip(city.colours, self.powers, strict=True)}
            )
        out["colour_cycle"] = [city.colours[i] for i in self.colour_cycle]
        return out


def resolve(
    city: CityMap,
    options: Options,
    seed: int | None,
    decks: Mapping[int, tuple[str, ...]] | None = None,
) -> Deal:
    """Resolve ``options`` into a :class:`Deal`.

    With a ``seed``, random parts and the four decks are drawn from it (streams
    ``colour-cycle``, ``objectives``, ``powers``, ``round-1`` … ``round-4``). Without one,
    ``"random"`` options and a missing colour cycle are refused, and decks are taken from
    ``decks`` (round index → card ids) or left unknown.

    Raises:
        NotationError: a random option without a seed, or a deck that is not the city's deck.
        ValueError: a seed out of range.
    """
    if seed is None:
        if options.objectives == "random" or options.powers == "random":
            raise NotationError('"random" options need a seed')
        if options.colour_cycle is None:
            raise NotationError("without a seed, options.colour_cycle must be given")
    cycle_names = options.colour_cycle
    if cycle_names is None:
        assert seed is not None
        cycle_names = tuple(Rng(seed, "colour-cycle").shuffled(city.colours))
    objectives = options.objectives
    if objectives == "random":
        assert seed is not None
        objectives = tuple(Rng(seed, "objectives").shuffled(city.objectives)[:2])
    powers = options.powers
    if powers is not None and not city.powers:
        raise NotationError(f"{city.title} has no pencil powers")
    if powers == "random":
        assert seed is not None
        powers = tuple(Rng(seed, "powers").shuffled(city.powers))
    card_ids = [c.id for c in city.deck]
    deck_list: list[tuple[str, ...] | None] = []
    for r in range(ROUNDS):
        if seed is not None:
            deck_list.append(tuple(Rng(seed, f"round-{r + 1}").shuffled(card_ids)))
        elif decks is not None and r in decks:
            deck = tuple(decks[r])
            if sorted(deck) != sorted(card_ids):
                raise NotationError(f"round {r + 1}: deck is not the {city.title} deck of 11 cards")
            deck_list.append(deck)
        else:
            deck_list.append(None)
    return Deal(
        tuple(city.colours.index(c) for c in cycle_names),
        tuple(objectives),
        None if powers is None else tuple(powers),
        tuple(deck_list),
    )


def colour_for(deal: Deal, players: int, player: int, round_index: int) -> int:
    """The colour index player ``player`` (0-based) draws in round ``round_index`` (0-based):
    position ⌊4k/n⌋ of the cycle, one step forward each round."""
    n = len(deal.colour_cycle)
    return deal.colour_cycle[(n * player // players + round_index) % n]
