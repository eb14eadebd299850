"""The abuser (benchmarks/abuse.py) beside the load's players, small: a real server process on
127.0.0.1 with short client deadlines, cheap analyses and low limits, 4 players, every kind of
abuse for a few seconds. Each kind is exercised and answered only as the API says it may be,
each limit lets through no more than its allowance, and the players lose nothing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from support.benchmarks import load

SERVER = {
    "METROGAMES_HEADER_SECONDS": "1",
    "METROGAMES_BODY_SECONDS": "1",
    "METROGAMES_ANALYSIS_BUDGET": "quick",
    "METROGAMES_DAILY_EXPERT": "medium",
    "METROGAMES_RATE_HINTS": "3/minute",
    "METROGAMES_RATE_ANALYSES": "2/minute",
    "METROGAMES_RATE_SIGNINS": "3/minute",
}
ABUSER = [
    "--seed", "7", "--hint-burst", "4", "--analysis-burst", "2", "--analysis-drops", "1",
    "--signin-burst", "4", "--practice-per-minute", "30", "--slow-bodies", "3",
    "--slow-headers", "4", "--header-interval", "0.2", "--flood-rate", "200",
]  # fmt: skip
SETUP = {"room 201", "view 200", "join 200", "start 200", "board 200", "player 201", "account 201"}
"""Answers of the set-up calls (each kind's rooms, player, account)."""
EXPECTED = {
    "hints": {"hint 200", "hint 429 rate-limited"},
    "analyses": {"analysis 200", "analysis 429 rate-limited", "dropped"},
    "practice": {"start 200", "action 200", "action 429 rate-limited", "result 200"},
    "signins": {"signin 401 bad-password", "signin 429 rate-limited"},
    "slow-bodies": {"408"},
    "slow-headers": {"408"},
    "flood": {"closed 1008 too many messages", "error rate-limited", "denied 429"},
    "hellos": {"closed 1008 too many messages", "error rate-limited", "denied 429"},
    "spectator": {"denied 429"},
}
"""What each kind may be answered besides its set-up, ``unanswered-at-stop`` and
``open-at-stop`` (the flood also its illegal actions' engine refusals)."""
REFUSALS_NOT_ENGINE = {"bad-request", "bad-notation", "stale-step", "server-error", "not-started"}


@pytest.fixture(scope="module")
def abused(tmp_path_factory: pytest.TempPathFactory) -> Any:
    ls, lw = load("loadserver"), load("load_web")
    work = tmp_path_factory.mktemp("abuse")
    cfg = lw.LoadConfig(
        players=4, duration=6.0, max_games=12, grace=5.0, idle_timeout=15.0, ramp=0.2, think=0.1
    )
    # the load on a thread of its own: the browser tests' sync Playwright keeps a loop running
    with (
        ls.server_process(f"sqlite:///{work / 'load.db'}", work, env=SERVER) as (url, _proc),
        ThreadPoolExecutor(1) as pool,
    ):
        result = pool.submit(lw.load_beside, url, cfg, "sqlite", work, ABUSER).result()
        result.stalls = lw.stalls(url)
        return result


def test_the_servers_stalls_are_counted_from_its_metrics(abused: Any) -> None:
    """Both histograms read, each count over 25 ms at least the count over 100 ms, and so on
    (a sum over the wrong buckets breaks the order), none negative."""
    assert set(abused.stalls) == {"loop_lag", "db_write", "action"}
    for counts in abused.stalls.values():
        assert list(counts) == ["25", "100", "250"]
        over25, over100, over250 = counts.values()
        assert over25 >= over100 >= over250 >= 0
    lag = abused.client_lag_ms  # the players' own loop, sampled every 50 ms for 6 s
    assert set(lag) == {"p99", "max"} and 0 <= lag["p99"] <= lag["max"]


def test_the_players_lose_nothing(abused: Any) -> None:
    assert abused.players_held == 4, abused
    assert abused.actions > 0, abused
    assert abused.lost == 0 and abused.duplicated == 0, abused
    assert abused.score_mismatches == 0 and abused.errors == {}, abused


def test_every_kind_is_exercised_and_answered_as_documented(abused: Any) -> None:
    report = abused.abuse
    assert report["errors"] == {} and report["faults"] == [], report
    assert set(report["kinds"]) == set(EXPECTED), report
    for kind, tally in report["kinds"].items():
        answers = tally["answers"]
        allowed = SETUP | EXPECTED[kind] | {"unanswered-at-stop", "open-at-stop"}
        if kind == "flood":
            engine = {a for a in answers if a.startswith("error ")}
            assert engine - {"error rate-limited"}, answers  # an engine refusal came back
            assert not {a.split()[1] for a in engine} & REFUSALS_NOT_ENGINE, answers
            allowed |= engine
        assert set(answers) <= allowed, (kind, answers)
        if kind != "spectator":
            assert tally["sent"] > 0 and set(answers) & EXPECTED[kind], (kind, tally)


def test_each_limit_lets_through_its_allowance_only(abused: Any) -> None:
    kinds = abused.abuse["kinds"]
    hints, signins = kinds["hints"]["answers"], kinds["signins"]["answers"]
    assert hints.get("hint 200", 0) <= 3 and hints.get("hint 429 rate-limited", 0) >= 1, hints
    assert signins.get("signin 401 bad-password", 0) <= 3, signins
    assert signins.get("signin 429 rate-limited", 0) >= 1, signins
    analyses = kinds["analyses"]["answers"]
    assert analyses["dropped"] >= 1 and analyses.get("analysis 200", 0) <= 1, analyses


def test_the_crowds_are_closed_and_come_back(abused: Any) -> None:
    kinds = abused.abuse["kinds"]
    for kind, crowd in (("slow-bodies", 3), ("slow-headers", 4)):
        tally = kinds[kind]
        assert tally["answers"].get("408", 0) >= 1, tally
        assert tally["sent"] > crowd, tally  # opened again after the server closed them


def test_the_sockets_are_closed_and_open_again(abused: Any) -> None:
    kinds = abused.abuse["kinds"]
    for kind in ("flood", "hellos"):
        tally = kinds[kind]
        assert tally["answers"].get("closed 1008 too many messages", 0) >= 1, tally
        assert tally["connections"] >= 2, tally
    assert kinds["spectator"]["answers"] == {"open-at-stop": 1}, kinds["spectator"]
    assert kinds["spectator"]["views"] >= 1, kinds["spectator"]


def test_the_abuser_refuses_unknown_kinds() -> None:
    abuse = load("abuse")
    assert abuse.parse_kinds(" flood,hints,flood ") == ("flood", "hints")
    with pytest.raises(ValueError, match="unknown kinds nope"):
        abuse.parse_kinds("hints,nope")


def test_the_abusers_options_come_from_load_webs() -> None:
    lw = load("load_web")
    parser = lw.build_parser()
    args = parser.parse_args(["--abuse-only", "flood", "--abuser-nice", "19", "--slow-bodies", "0"])
    assert lw.abuse_options(args, parser) == ["--only", "flood", "--slow-bodies", "0", "--nice", "19"]
    assert lw.abuse_options(parser.parse_args([]), parser) is None
    for wrong in (["--abuser-nice", "3"], ["--abuse", "--abuser-nice", "20"]):
        with pytest.raises(SystemExit):
            lw.abuse_options(parser.parse_args(wrong), parser)


def result(**facts: Any) -> Any:
    """A load result of 200 players, all seated, with ``facts`` changed."""
    lw = load("load_web")
    base: dict[str, Any] = {
        "players": 200, "players_held": 200, "db": "sqlite", "games_started": 100,
        "games_completed": 50, "actions": 4000, "seconds": 60.0, "actions_per_second": 66.7,
        "rtt_ms": {"p50": 5.0, "p90": 10.0, "p99": 60.0, "max": 90.0},
        "rtt_p99_by_window": [60.0], "seated_ms": {}, "refused": 0, "lost": 0,
        "duplicated": 0, "unverified": 0, "score_mismatches": 0, "out_of_order_views": 0,
        "errors": {}, "client_cpu_s": 1.0,
    }  # fmt: skip
    return lw.Result(**(base | facts))


def test_the_target_is_a_p99_within_one_and_a_half_times_and_nothing_lost() -> None:
    lw = load("load_web")
    quiet = result()
    slower = {"p50": 6.0, "p90": 12.0, "p99": 90.0, "max": 99.0}  # 90 / 60 = 1.5
    assert lw.compare(quiet, result(rtt_ms=slower))["target"]["met"] is True
    too_slow = slower | {"p99": 90.1}
    facts = lw.compare(quiet, result(rtt_ms=too_slow))
    assert facts["target"]["met"] is False and facts["p99_ratio"] == 1.5  # 1.50166…
    assert lw.compare(quiet, result(rtt_ms=slower, lost=1))["target"]["met"] is False
    # a frozen server: its few answered actions were quick, most players never seated
    frozen = result(actions=26, players_held=55, errors={"idle-timeout": 12})
    facts = lw.compare(quiet, frozen)
    assert facts["target"]["met"] is False and facts["actions_ratio"] == 0.01, facts
    assert lw.compare(quiet, result(players_held=199))["target"]["met"] is False
    assert lw.compare(None, result())["target"]["met"] is None
