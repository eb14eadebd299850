"""Steps in simultaneous Next Station turns (docs/web-api.md, "Playing": ``step``)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from support.web import act, create, view


def test_both_seats_may_act_on_the_view_they_saw(client: TestClient) -> None:
    """Two players of a hot-seat London turn both answer the same view: the second action is
    accepted though the first moved the step on; resending either is refused."""
    made = create(client, game="london", mode="hotseat", seats=[{"name": "A"}, {"name": "B"}])
    room, tokens = made["room"]["room"], made["tokens"]
    seen = view(client, room, tokens["0"])
    assert seen["to_move"] == [0, 1]
    step = seen["step"]
    first = act(client, room, tokens["0"], "pass", step)
    assert first.status_code == 200, first.text
    again = act(client, room, tokens["0"], "pass", step)
    assert again.status_code == 409 and again.json()["reason"] == "stale-step"
    second = act(client, room, tokens["1"], "pass", step)
    assert second.status_code == 200, second.text
    after = view(client, room, tokens["1"])
    assert after["step"] > step + 2  # both passes, then the next card
    late = act(client, room, tokens["1"], "pass", step)
    assert late.status_code == 409 and late.json()["reason"] == "stale-step"
