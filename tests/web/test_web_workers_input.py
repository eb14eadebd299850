"""The trust tests of bad input (:mod:`test_web_input`) against two workers: every request
and socket of a test goes to worker A and worker B in turn (:class:`workers.Alternating`), on
PostgreSQL + Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from test_web_input import (  # noqa: F401  (collected here again, with the client below)
    test_a_turn_based_clock_of_up_to_seven_days,
    test_bad_query_parameters_are_named_without_server_internals,
    test_bad_values_are_refused_by_every_route,
    test_names_are_normalised_and_checked,
    test_odd_tokens_are_wrong_tokens,
    test_people_cannot_pose_as_bots_and_bots_keep_their_mark,
    test_the_lone_surrogate_join_changes_nothing,
    test_two_bots_at_one_table_have_distinct_names,
    test_wrong_types_name_the_field,
)

from support.two_workers import Alternating, two_workers

pytestmark = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    """Two workers on the test database and Redis, reached in turn."""
    with two_workers(db_url) as (a, b):
        yield Alternating(a, b)
