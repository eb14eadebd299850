"""The web load benchmark's check (:mod:`load_web`): every room's record is downloaded and
replayed with the engine, and matched against what its clients sent — same final scores, every
accepted action present once (lost / duplicated / unverified: :mod:`load_web`'s docstring)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from loadplayers import RETRIED, Http, HttpStatusError, RoomRun

from metrogames.core.protocol import CHANCE
from metrogames.games import replay_record
from metrogames.games.metro import metro_action_from_json, metro_action_to_json
from metrogames.games.nextstation.actions import action_from_json, action_to_json


def _canon(state: Any, value: Any) -> str:
    """An action (notation JSON or engine value) in one canonical JSON text."""
    if hasattr(state, "city"):
        action = value if not isinstance(value, str | dict) else action_from_json(state.city, value)
        return json.dumps(action_to_json(state.city, action), sort_keys=True)
    action = value if not isinstance(value, dict) else metro_action_from_json(value)
    return json.dumps(metro_action_to_json(action), sort_keys=True)


@dataclass
class Check:
    lost: int = 0
    duplicated: int = 0
    unverified: int = 0
    score_mismatches: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, Any]] = field(default_factory=list)

    def note(self, run: RoomRun, what: str, **facts: Any) -> None:
        """Keep the first few lost/duplicated cases, to be shown with ``--json``."""
        if len(self.examples) < 10:
            self.examples.append({"what": what, "room": run.room, "kind": run.kind, **facts})


def match_by_seat(
    check: Check, run: RoomRun, state: Any, history: list[Any], finished: bool
) -> None:
    """Next Station: a record keeps each turn's actions in seat order, not in the order they
    came, so each seat's accepted actions must be its history entries, one for one, in order."""
    for seat, log in run.sent.items():
        played = [_canon(state, a) for who, a in history if who == seat]
        accepted = [s for s in log if s.outcome != "refused"]
        for i, sent in enumerate(accepted):
            facts = {"seat": seat, "step": sent.step, "sent": sent.action, "n": i}
            if i >= len(played):
                if finished:
                    check.lost += 1
                    check.note(run, "lost", **facts)
                else:
                    check.unverified += 1  # the turn in progress is not in the record
            elif played[i] != _canon(state, sent.action):
                check.lost += 1
                check.note(run, "lost", history=played[i], **facts)
        for i in range(len(accepted), len(played)):
            check.duplicated += 1  # applied without an accepted send: resent or doubled
            check.note(run, "unmatched", seat=seat, n=i, history=played[i])


def match_by_step(
    check: Check, run: RoomRun, state: Any, history: list[Any], finished: bool
) -> None:
    """Metro: turns are sequential, so each accepted action is the history entry of the step
    it was sent for; every history entry of a client's seat matches one sent action."""
    matched: set[int] = set()
    for seat, log in run.sent.items():
        for sent in log:
            if sent.reason in RETRIED:
                continue  # not played, and sent again: the later send is the one to match
            if sent.step >= len(history):
                if finished or sent.outcome == "refused":
                    check.lost += sent.outcome != "refused"
                else:
                    check.unverified += 1
                continue
            who, action = history[sent.step]
            here = who == seat and _canon(state, action) == _canon(state, sent.action)
            facts = {
                "seat": seat,
                "step": sent.step,
                "sent": sent.action,
                "outcome": sent.outcome,
                "reason": sent.reason,
                "history": [who, _canon(state, action) if who != CHANCE else action],
            }
            if sent.outcome == "refused":
                if here:
                    check.duplicated += 1  # refused, yet applied: a client would resend it
                    check.note(run, "refused-but-applied", **facts)
                    matched.add(sent.step)
            elif here and sent.step not in matched:
                matched.add(sent.step)
            else:
                check.lost += 1
                check.note(run, "lost", **facts)
    mine = set(run.sent)
    for k, (who, action) in enumerate(history):
        if who != CHANCE and who in mine and k not in matched:
            check.duplicated += 1
            check.note(run, "unmatched", seat=who, step=k, history=_canon(state, action))


async def verify(http: Http, rooms: list[RoomRun]) -> Check:
    """Replay every room's record and match it against what its clients sent."""
    check = Check()
    for run in rooms:
        try:
            _, record = await http.request("GET", f"/api/rooms/{run.room}/record")
        except HttpStatusError as exc:
            check.errors[f"record:{exc.status}"] += 1
            continue
        state = replay_record(record)
        history = state.history()
        finished = state.is_over()
        if run.final is not None:
            if not finished:
                check.errors["finished-view-but-record-not-over"] += 1
            elif state.scores() != run.final["scores"]:
                check.score_mismatches += 1
        if hasattr(state, "city"):
            match_by_seat(check, run, state, history, finished)
        else:
            match_by_step(check, run, state, history, finished)
    return check
