"""Records the tests of several folders share: a seeded solo game played by a bot, and the
independent recount of a ``line3`` record (``tests/support/line3.py``) from its moves alone."""

from __future__ import annotations

from metrogames.bots import make_bot
from metrogames.bots.play import play_bots
from metrogames.core.protocol import CHANCE, JsonObject
from metrogames.games import load_game


def solo_record(
    seed: int, bot: str = "greedy", city: str = "london", **options: object
) -> JsonObject:
    """The record (seed and deck revealed) of a solo game of ``city`` dealt from ``seed`` and
    played to the end by ``bot`` (seeded ``seed``)."""
    game = load_game(city, players=1, **options)
    final = play_bots(game.new_game(seed), [make_bot(bot, seed)])
    return dict(game.to_record(final, [f"bot:{bot}"], seed=seed, reveal=True))


def recount(record: dict[str, object]) -> list[int]:
    """Lines of three per player of a ``line3`` record, from its moves alone (not the game's
    code)."""
    board = [-1] * 9
    for player, text in record["moves"]:  # type: ignore[attr-defined]
        if player != CHANCE:
            board[(int(text[1]) - 1) * 3 + "ABC".index(text[0])] = player
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    return [sum(all(board[c] == p for c in line) for line in lines) for p in (0, 1)]
