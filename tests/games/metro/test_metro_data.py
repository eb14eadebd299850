"""Metro data: the package's ``metro.json`` (docs/engine-rules-metro.md, "Board and pieces").

Facts are checked against values copied by hand from the rules file and the reference facts;
corrupting the data must raise DataError on load.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from metrogames.core.errors import DataError, NotationError
from metrogames.data import load_json
from metrogames.games.metro import MetroGame, load_metro, parse_square, square_name
from metrogames.games.metro.tiles import MetroData

DATA = load_metro()


def raw() -> Any:
    return copy.deepcopy(load_json("metro.json"))


def test_tile_types_and_counts() -> None:
    """24 types, 60 tiles: 5 types of 4 copies, 2 of 3, 17 of 2 (rules, "Board and pieces")."""
    assert len(DATA.tile_codes) == 24
    assert sum(DATA.tile_counts) == 60
    assert sorted(Counter(DATA.tile_counts).items()) == [(2, 17), (3, 2), (4, 5)]
    four = {c for c, n in zip(DATA.tile_codes, DATA.tile_counts, strict=True) if n == 4}
    assert four == {"aaaa", "aacb", "baac", "cbaa", "acba"}
    three = {c for c, n in zip(DATA.tile_codes, DATA.tile_counts, strict=True) if n == 3}
    assert three == {"cbcb", "bcbc"}


def test_every_track_joins_even_to_odd() -> None:
    for code, conn in zip(DATA.tile_codes, DATA.conn, strict=True):
        assert sorted(conn) == list(range(8)), code
        for e in range(8):
            assert conn[conn[e]] == e
            assert (e + conn[e]) % 2 == 1, (code, e)


def test_tile_code_spells_the_tracks() -> None:
    """cbaa: N even (0) goes to W (c), E even (2) to S (b), S to N (a), W to E (a)."""
    cbaa = DATA.conn[DATA.tile_index["cbaa"]]
    assert (cbaa[0], cbaa[2], cbaa[4], cbaa[6]) == (7, 5, 1, 3)
    dddd = DATA.conn[DATA.tile_index["dddd"]]
    assert dddd == (1, 0, 3, 2, 5, 4, 7, 6)


def test_stations() -> None:
    """32 edge stations anticlockwise from H1's top side; departure even, arrival odd."""
    assert len(DATA.stations) == 32
    expected = {
        1: ("H1", 0),
        8: ("A1", 0),
        9: ("A1", 3),
        16: ("A8", 3),
        17: ("A8", 2),
        24: ("H8", 2),
        25: ("H8", 1),
        32: ("H1", 1),
        6: ("C1", 0),
        20: ("D8", 2),
    }
    for number, (square, side) in expected.items():
        st = DATA.stations[number - 1]
        assert (square_name(st.square), st.side) == (square, side)
        assert (st.departure, st.arrival) == (2 * side, 2 * side + 1)


def test_central_faces_and_squares() -> None:
    assert [square_name(s) for s in DATA.central_squares] == ["D4", "E4", "D5", "E5"]
    faces = {(square_name(sq), "NESW"[side]) for sq, side in DATA.central_faces}
    assert faces == {
        ("D3", "S"),
        ("E3", "S"),
        ("F4", "W"),
        ("F5", "W"),
        ("E6", "N"),
        ("D6", "N"),
        ("C5", "E"),
        ("C4", "E"),
    }
    assert DATA.playable_mask.bit_count() == 60
    assert DATA.edge_mask.bit_count() == 28


ALLOCATIONS = {
    2: [
        [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31],
        [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32],
    ],
    3: [
        [1, 4, 6, 11, 15, 20, 23, 25, 28, 31],
        [2, 7, 9, 12, 14, 19, 22, 27, 29, 32],
        [3, 5, 8, 10, 13, 18, 21, 24, 26, 30],
    ],
    4: [
        [4, 7, 11, 16, 20, 23, 27, 32],
        [3, 8, 12, 15, 19, 24, 28, 31],
        [1, 6, 10, 13, 18, 21, 25, 30],
        [2, 5, 9, 14, 17, 22, 26, 29],
    ],
    5: [
        [1, 5, 10, 14, 22, 28],
        [6, 12, 18, 23, 27, 32],
        [3, 7, 15, 19, 25, 29],
        [2, 9, 13, 21, 26, 30],
        [4, 8, 11, 20, 24, 31],
    ],
    6: [
        [1, 5, 10, 19, 27],
        [2, 11, 18, 25, 29],
        [4, 8, 14, 21, 26],
        [6, 15, 20, 24, 31],
        [3, 9, 13, 23, 30],
        [7, 12, 22, 28, 32],
    ],
}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_allocation_table(players: int) -> None:
    """Each seat's stations, and 16 and 17 unused with 3, 5 and 6 players."""
    seats = [list(s) for s in DATA.allocations[players]]
    assert seats == ALLOCATIONS[players]
    unused = [16, 17] if players in (3, 5, 6) else []
    assert list(DATA.unused[players]) == unused
    owners = DATA.owners(players)
    for seat, numbers in enumerate(ALLOCATIONS[players]):
        for number in numbers:
            assert owners[number - 1] == seat
    assert [n + 1 for n, o in enumerate(owners) if o < 0] == unused


def test_seat_colours() -> None:
    # the publisher's rulebook of this board prints these (docs/metro.md, the Decision)
    assert DATA.seat_colours == ("yellow", "blue", "orange", "green", "purple", "black")


def test_one_tile_squares() -> None:
    """dddd U-turns on every side: every edge square makes a one-tile route; aaaa never."""
    assert DATA.one_tile[DATA.tile_index["dddd"]] == DATA.edge_mask
    assert DATA.one_tile[DATA.tile_index["aaaa"]] == 0
    cccc = {square_name(s) for s in range(64) if DATA.one_tile[DATA.tile_index["cccc"]] >> s & 1}
    assert cccc == {"A1", "H1", "A8", "H8"}


def test_square_names() -> None:
    assert parse_square("A1") == 0
    assert parse_square("h8") == 63
    assert parse_square(" C5 ") == 34
    assert square_name(34) == "C5"
    assert all(parse_square(square_name(i)) == i for i in range(64))
    for bad in ["I1", "A0", "A9", "", "C55", 34, None, "5C", ["C5"]]:
        with pytest.raises(NotationError):
            parse_square(bad)
    with pytest.raises(NotationError):
        square_name(64)


def test_golden_pile() -> None:
    """The pile of a seed never changes (Rng(seed, "pile") shuffling the data order)."""
    game = MetroGame(2)
    assert game.pile_for(0)[:12] == [
        "cdac",
        "dacc",
        "badb",
        "aacb",
        "dada",
        "bcdd",
        "dbba",
        "aacb",
        "adbb",
        "adad",
        "cccc",
        "cbaa",
    ]
    assert game.pile_for(20261129)[:12] == [
        "bcbc",
        "accd",
        "aacb",
        "cbaa",
        "acba",
        "ddbc",
        "ccda",
        "dada",
        "acba",
        "badb",
        "dbba",
        "dddd",
    ]
    pile = game.pile_for(5)
    assert Counter(pile) == dict(zip(DATA.tile_codes, DATA.tile_counts, strict=True))
    assert MetroGame(6).pile_for(5) == pile  # the pile does not depend on the table
    with pytest.raises(ValueError):
        game.pile_for(-1)


# -- validation on load -------------------------------------------------------------------
def corrupt_count(d: Any) -> None:
    d["tile_types"][0]["count"] = 5


def corrupt_parity(d: Any) -> None:
    d["tile_types"][0]["tracks"] = [[0, 2], [1, 3], [4, 5], [6, 7]]


def corrupt_code(d: Any) -> None:
    d["tile_types"][0]["code"] = "abab"


def corrupt_duplicate_type(d: Any) -> None:
    d["tile_types"][1]["code"] = d["tile_types"][0]["code"]


def corrupt_station(d: Any) -> None:
    d["stations"][3]["square"] = "E2"


def corrupt_station_order(d: Any) -> None:
    d["stations"][0], d["stations"][1] = d["stations"][1], d["stations"][0]


def corrupt_departure(d: Any) -> None:
    d["stations"][0]["departure"] = 1


def corrupt_allocation(d: Any) -> None:
    d["allocations"]["2"]["stations"][0][0] = 2


def corrupt_unused(d: Any) -> None:
    d["allocations"]["3"]["unused"] = [16]


def corrupt_face(d: Any) -> None:
    d["central_station_faces"][0]["square"] = "A1"


def corrupt_colours(d: Any) -> None:
    d["seat_colours"][5] = "yellow"


def corrupt_missing(d: Any) -> None:
    del d["stations"]


def corrupt_type(d: Any) -> None:
    d["tile_types"][2]["tracks"] = "0-5"


def corrupt_check(d: Any) -> None:
    d["check_values"]["stations"] = 33


def corrupt_neighbour(d: Any) -> None:
    d["neighbour_endpoint"] = [4, 5, 6, 7, 0, 1, 2, 3]


@pytest.mark.parametrize(
    "corrupt",
    [
        corrupt_count,
        corrupt_parity,
        corrupt_code,
        corrupt_duplicate_type,
        corrupt_station,
        corrupt_station_order,
        corrupt_departure,
        corrupt_allocation,
        corrupt_unused,
        corrupt_face,
        corrupt_colours,
        corrupt_missing,
        corrupt_type,
        corrupt_check,
        corrupt_neighbour,
    ],
)
def test_bad_data_raises_data_error(corrupt: Any) -> None:
    d = raw()
    MetroData(d)  # the pristine copy loads
    corrupt(d)
    with pytest.raises(DataError):
        MetroData(d)


def test_parity_error_names_the_track() -> None:
    d = raw()
    d["tile_types"][0]["tracks"] = [[0, 2], [1, 3], [4, 5], [6, 7]]
    with pytest.raises(DataError, match="even endpoint to an odd one"):
        MetroData(d)


def test_sixty_tiles_error() -> None:
    d = raw()
    d["tile_types"][0]["count"] = 3
    d["check_values"] = {}
    with pytest.raises(DataError, match="60 tiles"):
        MetroData(d)


def test_engine_reads_only_package_data() -> None:
    """The engine never reads the shared reference files at run time."""
    from pathlib import Path

    from metrogames.games import metro

    for path in Path(metro.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "../shared" not in text and "reference/metro" not in text, path.name
