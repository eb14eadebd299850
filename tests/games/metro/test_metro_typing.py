"""The Metro engine seen only through the typed game protocol (``core/protocol.py``).

mypy checks this file's annotations (``mypy tests/games/metro/test_metro_typing.py``): ``MetroGame`` must be
a ``Game[MetroPlay]`` and its states ``State[MetroPlay]``, with the protocol's exact signatures.
At run time it plays one game through the protocol's members only.
"""

from __future__ import annotations

from metrogames.core.protocol import CHANCE, Game, State
from metrogames.core.rng import Rng
from metrogames.games.metro import MetroGame, MetroOptions, MetroPlay


def play_through_protocol(game: Game[MetroPlay], seed: int) -> State[MetroPlay]:
    """Random legal actions, every index and notation face round-tripped on the way."""
    state: State[MetroPlay] = game.new_game(seed)
    rng = Rng(seed, "typing")
    while not state.is_over():
        (player,) = state.to_move()
        actions = state.legal_actions(player)
        action = rng.choice(actions)
        if player == CHANCE:
            assert game.chance_outcome_from_index(game.chance_outcome_index(action)) == action
        else:
            assert game.action_from_index(game.action_index(action)) == action
        text = state.action_to_string(player, action)
        assert state.string_to_action(player, text) == action
        assert state.action_from_json(player, state.action_to_json(player, action)) == action
        assert state.is_legal(player, action)
        state = state.apply(player, action)
    return state


def test_a_metro_game_through_the_protocol_types() -> None:
    game: Game[MetroPlay] = MetroGame(3, MetroOptions(turn_mode="official-hand"))
    final = play_through_protocol(game, 5)
    assert final.winners() and len(final.scores()) == game.num_players == 3
    assert final.score_components(0)["total"] == final.scores()[0]
    assert game.from_snapshot(final.snapshot()).snapshot() == final.snapshot()
    assert game.pass_action is None
    seen: State[MetroPlay] = final.view(None)
    assert seen.viewer is not None
