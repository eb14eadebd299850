"""The worker's one pub/sub hub (web/infra/pubsub.py) that the account events and the lobby
share: delivery by topic and key to inboxes and handlers, bounded inboxes dropped when full,
and what another worker published heard, the worker's own skipped."""

from __future__ import annotations

import json

from metrogames.web.infra.pubsub import Hub
from support.web import run_async


def test_an_event_reaches_its_topic_and_key_only_and_the_topic_s_handlers() -> None:
    async def scene() -> tuple[list[object], list[object], list[tuple[str, object]]]:
        hub = Hub()
        ann, bob = hub.subscribe("account", "ann"), hub.subscribe("account", "bob")
        lobby = hub.subscribe("lobby", "ann")
        heard: list[tuple[str, object]] = []
        hub.on("account", lambda key, event: heard.append((key, event)))
        await hub.publish("account", "ann", {"n": 1})
        got = [ann.queue.get_nowait()]
        hub.unsubscribe(ann)
        await hub.publish("account", "ann", {"n": 2})  # nobody's inbox now: the handler only
        assert hub.subscribers("account", "ann") == 0 and hub.subscribers("account", "bob") == 1
        return got, [bob.queue.qsize(), lobby.queue.qsize(), ann.queue.qsize()], heard

    got, sizes, heard = run_async(scene())
    assert got == [{"n": 1}]
    assert sizes == [0, 0, 0]
    assert heard == [("ann", {"n": 1}), ("ann", {"n": 2})]


def test_a_full_inbox_is_dropped_and_nobody_waits() -> None:
    async def scene() -> tuple[bool, int]:
        hub = Hub()
        slow = hub.subscribe("account", "ann", limit=2)
        for n in range(3):
            await hub.publish("account", "ann", {"n": n})
        return slow.dropped, slow.queue.qsize()

    assert run_async(scene()) == (True, 2)


def test_another_worker_s_event_is_heard_and_the_worker_s_own_and_malformed_ones_are_not() -> None:
    async def scene() -> list[object]:
        hub = Hub()
        inbox = hub.subscribe("account", "ann")
        mine = {"worker": hub.worker, "topic": "account", "key": "ann", "event": {"n": 0}}
        other = {**mine, "worker": "elsewhere", "event": {"n": 1}}
        for body in (mine, other, {**other, "key": 5}, {**other, "event": [1]}, [1, 2]):
            hub.heard(json.dumps(body).encode())
        found = []
        while not inbox.queue.empty():
            found.append(inbox.queue.get_nowait())
        return found

    assert run_async(scene()) == [{"n": 1}]
