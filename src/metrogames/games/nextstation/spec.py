"""Next Station's entries in the game registry: one :class:`GameType` and one engine per city.

Imported by :mod:`metrogames.games.registry` the first time ``london`` or ``paris`` is asked
for. The facts (options, score range, game length, bot tuning) come from the city's data; the
:class:`NextStationEngine` makes games and reads records, deal manifests and score sheets, and
gives the drawing data; the states provide the position capabilities themselves
(:class:`~metrogames.games.nextstation.state.NextStationState`: view JSON, solo result,
estimates, score bound, observations; ``docs/design.md``, "Capabilities"). The modules behind
records, sheets and drawing are imported when first used, so playing games (``simulate``)
loads only the engine.
"""

from __future__ import annotations

from functools import lru_cache
from typing import cast

from metrogames.core.errors import DataError, NotationError, OptionError, RecordError, message_of
from metrogames.core.protocol import (
    BotSetting,
    GameType,
    JsonObject,
    JsonValue,
    OptionSpec,
    Tutorial,
)
from metrogames.games.known import register_game
from metrogames.games.nextstation.bound import score_ceiling
from metrogames.games.nextstation.citymap import (
    CITY_FILES,
    CUSTOM_GAME,
    CUSTOM_KEPT,
    CityMap,
    load_city,
)
from metrogames.games.nextstation.deal import MAX_PLAYERS, ROUNDS, Options
from metrogames.games.nextstation.mapcheck import POWERS, adopt, check_map, custom_city, read_map
from metrogames.games.nextstation.objectives import OBJECTIVES
from metrogames.games.nextstation.option_text import objectives_from_text, powers_from_text
from metrogames.games.nextstation.present import board_json
from metrogames.games.nextstation.record import parse_record, replay
from metrogames.games.nextstation.shapes import NextStationViewPart
from metrogames.games.nextstation.sheet import score_sheet
from metrogames.games.nextstation.state import NextStationGame, NextStationState
from metrogames.i18n import N_, msg


def option_specs(city: CityMap) -> dict[str, OptionSpec]:
    """The options of ``city`` for menus and flags (``docs/notation.md``, "Options"); the
    colour cycle has no command-line flag (deal manifests set it; else the seed draws it)."""
    short = city.title.removeprefix("Next Station: ")
    specs = {
        "objectives": OptionSpec(
            [],
            ([], "random"),
            {"count": 2, "from": list(city.objectives)},
            help="Next Station objectives: 'random' or two ids, comma-separated.",
        ),
        "colour_cycle": OptionSpec(None, (None,), {"permutation_of": list(city.colours)}),
    }
    if city.powers:
        example = f"{city.colours[0]}=joker,{city.colours[1]}=switch"
        specs["powers"] = OptionSpec(
            None,
            (None, "random"),
            {"per_colour": list(city.colours), "from": list(city.powers)},
            help=f"{short} pencil powers: 'random' or {example},... pairs.",
        )
    return specs


def map_option_specs() -> dict[str, OptionSpec]:
    """The options of the game ``nextstation``: ``map`` (``--map FILE``), and the
    objectives and powers any map may list (checked against the map's own lists)."""
    return {
        "map": OptionSpec(
            None,
            (None,),
            help="A Next Station map file (docs/maps.md): play it as the game nextstation.",
        ),
        "objectives": OptionSpec(
            [],
            ([], "random"),
            {"count": 2, "from": list(OBJECTIVES)},
            help="Next Station objectives: 'random' or two ids, comma-separated.",
        ),
        "colour_cycle": OptionSpec(None, (None,)),
        "powers": OptionSpec(
            None,
            (None, "random"),
            {"from": list(POWERS)},
            help="A custom map's pencil powers (if it lists some): 'random' or colour=power pairs.",
        ),
    }


BOT_LEVELS: dict[str, dict[str, BotSetting]] = {
    "london": {
        "medium": BotSetting("greedy"),
        "hard": BotSetting("montecarlo", 500, use_heuristic=True),
        "expert": BotSetting("montecarlo", 800, use_heuristic=True, deep=True),
    },
    "paris": {
        "medium": BotSetting("greedy"),
        "hard": BotSetting("montecarlo", 250, use_heuristic=True),
        "expert": BotSetting("montecarlo", 1000, use_heuristic=True),
    },
}
"""City -> the bot levels' settings (a custom map, ``nextstation``, plays the bots' defaults:
not tuned, tried on the test map only, ``docs/maps.md``), chosen by measured strength and time per decision
(``benchmarks/bots.py``; the figures are in the README's "Bots" table):

* ``medium``: the greedy player (it beats random by about 30 points).
* ``hard``: flat Monte Carlo where each position after an action is valued by the game's own
  estimate (the state's ``heuristic``: a fast greedy playout of the player's map) — 500
  estimates in London, 250 in Paris (whose estimate is about twice as slow), about 0.1 s a
  decision.
* ``expert``: within 2 s a decision on one core: in London 800 estimates by the *deep*
  estimate (``deep_heuristic``: the greedy playout looking one card ahead, about three times
  as slow; 157.7 points over the 200 deals of the manifest, +2.7 ± 2.1 over 2000
  greedy-playout estimates on the 104 deals both played), in Paris 1000 estimates (about
  0.4–0.5 s a decision, p95 0.9 s; 184.8 points over the 200 Paris deals, +41.5 ± 2.4 over
  ``greedy``).
"""


@lru_cache(maxsize=CUSTOM_KEPT)  # bounded: custom maps come and go
def _game(city: str, players: int, options: Options) -> NextStationGame:
    return NextStationGame(city, players, options)


class _CityEngine:
    """What the engines of a city's name and of custom maps share: games from options,
    states from records and deals (:class:`~metrogames.core.capabilities.Engine`, with
    ``OptionText``).

    Args:
        city: the game's name (``london``, ``paris``; ``nextstation`` for custom maps).
    """

    def __init__(self, city: str) -> None:
        self.city = city

    def make(self, players: int, options: JsonObject) -> NextStationGame:
        """The city's game (one shared frozen value per player count and options).

        Raises:
            OptionError: a bad option value (``"london options: ..."``).
        """
        try:
            parsed = Options.from_json(load_city(self.city), options)
        except NotationError as exc:
            raise self._refused(exc) from None
        return _game(self.city, players, parsed)

    def _refused(self, exc: Exception) -> OptionError:
        return OptionError(
            msg(N_("{game} options: {detail}"), game=self.city, detail=message_of(exc))
        )

    def replay(self, record: object) -> NextStationState:
        """The record replayed to its last state (``docs/notation.md``, "Game record")."""
        return replay(parse_record(record))

    def record_start(self, record: object) -> NextStationState:
        """The record's first state (its deal)."""
        return parse_record(record).new_state()

    def from_deal(self, deal: object, players: int) -> NextStationState:
        """The first state of a deal record of this city for ``players`` players.

        Raises:
            RecordError: another city's deal, or a record that is not a deal (every round's
                deck, no cards or turns).
        """
        other = deal.get("game") if isinstance(deal, dict) else None
        if other != self.city:  # else a Paris manifest would be played and counted as London
            raise RecordError(f"a {other} deal, not a {self.city} one")
        record = parse_record(deal)
        if not record.is_deal:
            raise RecordError("a deal record needs all 4 rounds' decks and no cards or turns")
        record.players = [f"p{i}" for i in range(players)]
        return record.new_state()

    def option_from_text(self, name: str, text: str) -> JsonValue:
        """``OptionText``: an option's value from its command-line text (``objectives``:
        ``random`` or comma-separated ids; ``powers``: ``random``, ``colour=power`` pairs or
        a JSON object); the others as written.

        Raises:
            NotationError: bad syntax (the message shows the syntax).
        """
        if name == "objectives":
            return objectives_from_text(text)
        if name == "powers":
            return powers_from_text(load_city(self._example_city), text)
        return text

    @property
    def _example_city(self) -> str:
        return self.city


class NextStationEngine(_CityEngine):
    """The engine behind one city's name (:class:`~metrogames.core.capabilities.Engine`, with
    ``Boards``, ``ScoreSheets`` and ``OptionText``).

    Args:
        city: the city's name (``london``, ``paris``).
    """

    def score_sheet(self, sheet: object) -> JsonObject:
        """``ScoreSheets``: the ``score --json`` result of a Next Station score sheet."""
        city, scored = score_sheet(sheet)
        return cast(JsonObject, scored.to_json(city))  # a SheetJson: typed JSON

    def board_json(self) -> JsonObject:
        """``Boards``: the city's drawing data (:func:`.present.board_json`), built once."""
        return _board_json(self.city)


class MapEngine(_CityEngine):
    """The engine of custom maps, the game ``nextstation`` (``docs/maps.md``): its ``map``
    option is a map (a decoded JSON object, or a file's path), checked by
    :func:`.mapcheck.check_map`; its records carry the map and its content hash. With
    ``OptionText`` (``--map FILE`` reads the file) and ``MapChecks``."""

    def __init__(self) -> None:
        super().__init__(CUSTOM_GAME)

    def make(self, players: int, options: JsonObject) -> NextStationGame:
        """The game on ``options["map"]`` (one shared frozen value per map, player count and
        options).

        Raises:
            OptionError: no map, an invalid one (every problem listed), or a bad option.
        """
        rest = dict(options)
        source = rest.pop("map", None)
        if source is None:
            raise self._refused(NotationError("map: a custom map is needed (a file or an object)"))
        try:
            key = custom_city(source).key
            parsed = Options.from_json(load_city(key), rest)
        except (DataError, NotationError) as exc:
            raise self._refused(exc) from None
        return _game(key, players, parsed)

    def option_from_text(self, name: str, text: str) -> JsonValue:
        """``OptionText``: ``map``: the decoded JSON of the file ``text`` names; the others as
        for a city.

        Raises:
            NotationError: a file that cannot be read or is not JSON.
        """
        if name != "map":
            return super().option_from_text(name, text)
        try:
            data: JsonValue = read_map(text)
        except DataError as exc:
            raise NotationError(str(exc)) from None
        return data

    @property
    def _example_city(self) -> str:
        return "london"

    def check_map(self, data: object) -> JsonObject:
        """``MapChecks``: the checker's report on the decoded map ``data``: ``{"valid",
        "problems", "counts", "hash"}`` (``docs/maps.md``, "The checker"); never raises."""
        return check_map(data).to_json()

    def adopt_map(self, data: object, report: JsonObject) -> str:
        """``MapChecks``: keep ``data``, which ``report`` found valid (:func:`.mapcheck.adopt`).

        Raises:
            DataError: ``report`` is not a valid report of ``data``.
        """
        return adopt(data, report).key

    def map_board_json(self, data: object) -> JsonObject:
        """``MapChecks``: the drawing data of the decoded map ``data`` (:func:`.present.board_json`,
        built once per map while it is kept).

        Raises:
            DataError: an invalid map (every problem listed).
        """
        return _board_json(custom_city(data).key)

    def record_map(self, record: object) -> str | None:
        """``MapChecks``: the content hash of the map a decoded record is played on (a
        custom map's ``map_hash``; London's or Paris's own hash), ``None`` when the record
        names no known game."""
        if not isinstance(record, dict):
            return None
        game = record.get("game")
        if game == CUSTOM_GAME:
            digest = record.get("map_hash")
            return digest if isinstance(digest, str) else None
        return load_city(game).hash if isinstance(game, str) and game in CITY_FILES else None


TUTORIAL = Tutorial(seed=20261130)
"""Each city's guided first game: the solo deal of this seed (the web table's
``static/tutorials.json`` steps through its cards and colour order)."""


@lru_cache(maxsize=CUSTOM_KEPT)  # bounded: custom maps come and go
def _board_json(city: str) -> JsonObject:
    return board_json(city)


def _register(city_name: str) -> None:
    city = load_city(city_name)
    register_game(
        GameType(
            name=city_name,
            title=city.title,
            players=range(1, MAX_PLAYERS + 1),
            dynamics="simultaneous",
            options=option_specs(city),
            view_type=NextStationViewPart,
            family="nextstation",
            score_range=(0, score_ceiling(city)),  # no rule takes points away
            max_game_length=ROUNDS * len(city.deck),  # at most one decision per card flipped
            daily=True,
            bot_levels=BOT_LEVELS.get(city_name, {}),
            tutorial=TUTORIAL,
        ),
        NextStationEngine(city_name),
    )


def _register_maps() -> None:
    register_game(
        GameType(
            name=CUSTOM_GAME,
            title="Next Station: custom map",
            players=range(1, MAX_PLAYERS + 1),
            dynamics="simultaneous",
            options=map_option_specs(),
            view_type=NextStationViewPart,
            family="nextstation",
            max_game_length=ROUNDS * len(load_city("london").deck),  # a map plays London's or Paris's 11 cards
        ),
        MapEngine(),
    )


for _name in CITY_FILES:
    _register(_name)
_register_maps()
