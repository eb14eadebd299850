"""A serving process settles its heap before the first request (``web/server.py``,
``settle_heap``): what start-up made is frozen out of the collector's sight, the collector's
thresholds are the serving ones, and garbage made afterwards is still collected."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from metrogames.web.server import GC_THRESHOLDS, settle_heap


@pytest.fixture
def collector() -> Iterator[None]:
    """The collector as it was, after the test (unfrozen, its thresholds back)."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


class Node:
    """An object that can hold a reference cycle."""

    me: object


def test_start_up_is_frozen_and_later_cycles_are_still_collected(collector: None) -> None:
    tracked = len(gc.get_objects())
    settle_heap()
    assert gc.get_freeze_count() >= tracked // 2  # what lived at start-up, less its garbage
    assert len(gc.get_objects()) < tracked // 10  # a full collection walks almost nothing
    assert gc.get_threshold() == GC_THRESHOLDS
    node = Node()
    node.me = node
    gone = weakref.ref(node)
    del node
    gc.collect()
    assert gone() is None
