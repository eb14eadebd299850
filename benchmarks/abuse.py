"""An abuser of the web table: one client address at the server's limits, for a bounded time.

It counts what it did and what it was answered.

Run alone: ``.venv/bin/python benchmarks/abuse.py --server http://127.0.0.1:8000 --duration 60
[--only KINDS] [--json]``; ``benchmarks/load_web.py --abuse`` starts it as a separate process
beside its players. It first sets up what it needs (its rooms, a guest player, an account; a
kind whose setup is refused is reported and left out), writes ``abuse: started`` on standard
error, then runs every kind at once, concurrently, for ``--duration`` seconds:

* ``hints``: coach hints (the ``expert`` search at the ``hard`` budget) in its own London solo
  room and Metro room against a random bot, in bursts of ``--hint-burst`` (20: one address's
  minute) at once;
* ``analyses``: hindsight analyses of distinct finished London and Paris records (made here
  with the engine from fresh seeds, so no cache can answer), in bursts of ``--analysis-burst``
  (6: the minute's allowance) of which ``--analysis-drops`` (3) are sent whole and their
  connection closed at once, unread, as the attacker of issue 21 did;
* ``practice``: practice games of past days, each a different day (London and Paris in turn,
  ``--practice-per-minute``, 20: the default limit on rooms an address may start), each played
  to its end with the first legal action and its result asked for — which starts the day's
  expert game;
* ``signins``: wrong passwords for an account made at set-up, in bursts of ``--signin-burst``
  (10: the minute's allowance; each one an Argon2 hash);
* ``slow-bodies``: ``--slow-bodies`` (50) connections sending ``POST /api/rooms`` with
  ``Content-Length: 1000`` and a body of ``{``, held open, each opened again when the server
  closes it;
* ``slow-headers``: ``--slow-headers`` (300) connections sending a request's headers a byte
  every ``--header-interval`` (1 s), each opened again when the server closes it;
* ``flood``: one WebSocket of an online London room of its own sending parseable illegal
  actions for the current step as fast as it can (``--flood-rate`` to cap it), opened again
  (hello, flood) whenever the server closes it;
* ``hellos``: a WebSocket of the other seat of that room saying hello over and over, opened
  again when closed; a spectator's socket on the room counts the views the server pushes to
  another socket of the room meanwhile (``spectator``).

The requests are in :mod:`abuse_requests`, the connections in :mod:`abuse_sockets`. A burst
kind sends its next burst as soon as the server's ``Retry-After`` (of a 429 refusal)
says a place is free, else a second after the last answer. Beside ``load_web.py``'s players it
connects from an address of its own (``--source``, :data:`SOURCE`: 127.0.0.2), while the
players' 127.0.0.1 is exempt from the per-address limits (``METROGAMES_RATE_EXEMPT``): this
abuser meets every limit at the server's default — rooms (20 a minute), players, hints (20),
analyses (6), sign-ups, sign-ins (10), WebSockets opened (60 a minute) and held (32), the job
quota (3) — and the message limits (20 a second, bursts of 40), per socket and per seat.

Counted per kind (``--json``: one document on standard output): ``sent`` (requests,
connections, or messages written to a socket — a flooding client writes far more than the
server reads before it closes the socket), ``answers`` by ``"<request> <status> <reason>"`` (HTTP), the
server's first status line or ``closed``/``reset`` (raw connections), ``error <reason>`` (the
sockets' error messages), ``closed <code> <reason>`` (sockets closed by the server), ``denied <status>`` (sockets
refused at the handshake, opened again at once), ``ms``
(p50 / p99 / max: answer times of the requests not refused by a rate limit; for the raw
connections how long the server held each before closing it), and kind-specific counts
(``connections``, ``views``, ``expert-known`` …). ``faults`` lists, with the exact request, every
answer of 500 or more, every request unanswered after ``--request-timeout`` (analyses:
``--analysis-timeout``) — a hang — and every request whose connection (a new one each time)
the server reset or closed without an answer.

Bounded: every loop stops at ``--duration``; a request still unanswered then is dropped
(``unanswered-at-stop``), every connection is closed, and the whole run is cancelled
``STOP_GRACE`` seconds after the deadline whatever it waits on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson
from loadserver import percentile

from metrogames.web.infra.config import cpu_list

KINDS = (
    "hints",
    "analyses",
    "practice",
    "signins",
    "slow-bodies",
    "slow-headers",
    "flood",
    "hellos",
)
READY = "abuse: started"
"""The line written on standard error once set up (``load_web.py`` waits for it)."""
STOP_GRACE = 10.0
"""Seconds after ``--duration`` at which whatever still runs is cancelled."""
CONNECT_SECONDS = 10.0
"""How long a connection may take to open (TCP, or a WebSocket's handshake) before it is a
fault."""
FAULTS_KEPT = 5
"""Faults kept with their input, per kind (all are counted)."""
Run = Callable[[], Coroutine[Any, Any, None]]
"""What a kind's set-up returns: the kind's run until the deadline."""


@dataclass
class AbuseConfig:
    """What to abuse and how hard (see the module docstring)."""

    duration: float = 60.0
    kinds: tuple[str, ...] = KINDS
    hint_burst: int = 20
    analysis_burst: int = 6
    analysis_drops: int = 3
    practice_per_minute: float = 20.0
    signin_burst: int = 10
    slow_bodies: int = 50
    slow_headers: int = 300
    header_interval: float = 1.0
    flood_rate: float = 0.0
    """Messages a second of the flood (0: as fast as it can)."""
    request_timeout: float = 30.0
    analysis_timeout: float = 120.0
    seed: int | None = None
    source: str = ""
    """The local address every connection comes from (``--source``, e.g. ``127.0.0.2``: an
    address of its own, which the server's per-address limits count apart from the players';
    empty: the system's choice)."""


@dataclass
class Tally:
    """What one kind did and was answered."""

    sent: int = 0
    answers: Counter[str] = field(default_factory=Counter)
    ms: list[float] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        ms = sorted(self.ms)
        out: dict[str, Any] = {"sent": self.sent, "answers": dict(sorted(self.answers.items()))}
        if ms:
            out["ms"] = {
                "p50": round(percentile(ms, 50), 1),
                "p99": round(percentile(ms, 99), 1),
                "max": round(ms[-1], 1),
            }
        return out | dict(sorted(self.counts.items()))


@dataclass
class Answer:
    """An HTTP answer: status, decoded body, ``Retry-After`` seconds (or ``None``)."""

    status: int
    body: Any
    retry_after: float | None


class Abuser:
    """One abusing client of the server at ``base_url`` (``http://host:port``)."""

    def __init__(self, base_url: str, cfg: AbuseConfig) -> None:
        self.base_url = base_url.rstrip("/")
        parts = urlsplit(self.base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.cfg = cfg
        self.rng = random.Random(cfg.seed if cfg.seed is not None else secrets.randbits(64))
        self.tallies: dict[str, Tally] = {}
        self.faults: list[dict[str, Any]] = []
        self.errors: dict[str, str] = {}
        self.stop_at = 0.0
        self.http: aiohttp.ClientSession | None = None
        self.shared: dict[str, Any] = {}
        """What several kinds use (the flood room: :mod:`abuse_sockets`)."""

    # -- time ------------------------------------------------------------------------------
    def left(self) -> float:
        """Seconds until the run stops (0 once it has)."""
        return max(0.0, self.stop_at - asyncio.get_running_loop().time())

    async def sleep(self, seconds: float) -> None:
        """Sleep ``seconds``, or until the run stops."""
        await asyncio.sleep(max(0.0, min(seconds, self.left())))

    def local_addr(self) -> tuple[str, int] | None:
        """Where this abuser's connections come from (``None``: anywhere)."""
        return (self.cfg.source, 0) if self.cfg.source else None

    async def open_connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A raw TCP connection to the server, from :meth:`local_addr`."""
        return await asyncio.open_connection(self.host, self.port, local_addr=self.local_addr())

    # -- HTTP ------------------------------------------------------------------------------
    def fault(self, kind: str, **facts: Any) -> None:
        """Count a fault (a 5xx, a hang, a connection reset) of ``kind``; keep the first few
        with their exact input."""
        tally = self.tallies[kind]
        tally.counts["faults"] += 1
        if tally.counts["faults"] <= FAULTS_KEPT:
            self.faults.append({"kind": kind, **facts})

    def connect_wait(self) -> float:
        """How long the next connection may take to open: :data:`CONNECT_SECONDS`, less near
        the run's end."""
        return max(0.1, min(CONNECT_SECONDS, self.left()))

    def connect_failed(self, kind: str, target: str, exc: BaseException, wait: float) -> None:
        """A connection to ``target`` not made within ``wait`` seconds: at the run's end
        (``unanswered-at-stop``), else counted ``connect <error>`` and kept as a fault."""
        tally = self.tallies[kind]
        if isinstance(exc, TimeoutError) and wait < CONNECT_SECONDS:
            tally.answers["unanswered-at-stop"] += 1
            return
        tally.answers[f"connect {type(exc).__name__}"] += 1
        self.fault(kind, request=target, what=f"connect: {exc!r}")

    async def call(
        self,
        kind: str,
        name: str,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        timeout: float | None = None,
        setup: bool = False,
    ) -> Answer | None:
        """``method path`` with the JSON ``body`` (and a bearer ``token``), counted in
        ``kind``'s tally as ``name``; ``None`` when no answer came (counted why). Set-up calls
        (``setup``) wait ``timeout`` whatever the run's deadline."""
        assert self.http is not None
        tally = self.tallies[kind]
        cap = timeout or self.cfg.request_timeout
        wait = cap if setup else min(cap, self.left())
        if wait <= 0:
            return None
        tally.sent += 1
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if method != "GET":  # the server refuses a change not said to be JSON, body or not
            headers["Content-Type"] = "application/json"
        t0 = time.perf_counter()
        try:
            async with (
                asyncio.timeout(wait),
                self.http.request(method, path, json=body, headers=headers) as r,
            ):
                raw = await r.read()
                status, retry = r.status, r.headers.get("Retry-After")
        except TimeoutError:
            if wait < cap:
                tally.answers["unanswered-at-stop"] += 1
            else:
                tally.answers[f"{name} timeout"] += 1
                shown = json.dumps(body)[:300] if body is not None else None
                self.fault(
                    kind, request=f"{method} {path}", body=shown, what=f"no answer in {cap:g} s"
                )
            return None
        except aiohttp.ClientError as exc:  # a fresh connection reset or closed unanswered
            tally.answers[f"{name} transport {type(exc).__name__}"] += 1
            shown = json.dumps(body)[:300] if body is not None else None
            self.fault(kind, request=f"{method} {path}", body=shown, what=f"transport: {exc!r}")
            return None
        ms = (time.perf_counter() - t0) * 1000
        try:
            decoded = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            decoded = raw[:200].decode(errors="replace")
        reason = decoded.get("reason") if isinstance(decoded, dict) and status >= 400 else None
        tally.answers[f"{name} {status}" + (f" {reason}" if reason else "")] += 1
        if status != 429 and not setup:
            tally.ms.append(ms)
        if status >= 500:
            shown = json.dumps(body)[:300] if body is not None else None
            self.fault(kind, request=f"{method} {path}", body=shown, status=status, answer=decoded)
        return Answer(status, decoded, float(retry) if retry else None)

    async def bursts(self, one: Callable[[int], Awaitable[Answer | None]], size: int) -> None:
        """``size`` calls of ``one(i)`` at once, again and again until the run stops: the next
        burst when a 429's ``Retry-After`` says a place is free, else a second after the last
        answer."""
        i = 0
        while self.left() > 0:
            answers = await asyncio.gather(*(one(i + k) for k in range(size)))
            i += size
            waits = [a.retry_after for a in answers if a and a.status == 429 and a.retry_after]
            await self.sleep(min(waits) if waits else 1.0)

    # -- the kinds -------------------------------------------------------------------------
    async def need(
        self,
        kind: str,
        name: str,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
    ) -> Any:
        """A set-up call's decoded answer.

        Raises:
            SetupError: no 2xx answer.
        """
        answer = await self.call(kind, name, method, path, body, token, setup=True)
        if answer is None or answer.status >= 300:
            got = "no answer" if answer is None else f"{answer.status} {answer.body}"
            raise SetupError(f"{method} {path}: {got}")
        return answer.body

    # -- a run ------------------------------------------------------------------------------
    async def run(self) -> dict[str, Any]:
        """Set up, say so on standard error, abuse until ``duration`` has passed; the report."""
        import abuse_requests  # beside this file
        import abuse_sockets

        setups = abuse_requests.SETUPS | abuse_sockets.SETUPS
        cpu0 = time.process_time()
        # a connection per request: none is reused just as the server closes it idle
        connector = aiohttp.TCPConnector(limit=0, force_close=True, local_addr=self.local_addr())
        self.http = aiohttp.ClientSession(
            base_url=self.base_url,
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            json_serialize=lambda value: orjson.dumps(value).decode(),
        )
        loop = asyncio.get_running_loop()
        try:
            self.stop_at = loop.time() + 3600  # set-up calls are bounded by their own timeout
            loops: dict[str, Run] = {}
            for kind in self.cfg.kinds:
                self.tallies[kind] = Tally()
                try:
                    loops[kind] = await setups[kind](self)
                except SetupError as exc:
                    self.errors[kind] = str(exc)
            if "flood_room" in self.shared:
                self.tallies["spectator"] = Tally()
                loops["spectator"] = lambda: abuse_sockets.spectator(self)
            print(READY, file=sys.stderr, flush=True)
            t0 = loop.time()
            self.stop_at = t0 + self.cfg.duration
            tasks = [asyncio.create_task(run(), name=kind) for kind, run in loops.items()]
            done, pending = await asyncio.wait(tasks, timeout=self.cfg.duration + STOP_GRACE)
            for task in pending:
                task.cancel()
                self.tallies[task.get_name()].counts["cancelled-after-stop"] += 1
            await asyncio.gather(*pending, return_exceptions=True)
            for task in done:
                crash = task.exception()
                if crash is not None:
                    self.errors[task.get_name()] = f"crashed: {type(crash).__name__}: {crash}"
            seconds = loop.time() - t0
        finally:
            await self.http.close()
        return {
            "server": self.base_url,
            "seconds": round(seconds, 1),
            "config": asdict(self.cfg) | {"kinds": list(self.cfg.kinds)},
            "cpu_s": round(time.process_time() - cpu0, 2),
            "kinds": {k: t.to_json() for k, t in self.tallies.items()},
            "errors": self.errors,
            "faults": self.faults,
        }


class SetupError(Exception):
    """A kind could not be set up (its message says which request got what)."""


def print_report(report: dict[str, Any]) -> None:
    """The report as text: a line per kind."""
    print(f"abuse of {report['server']} for {report['seconds']} s (abuser CPU {report['cpu_s']} s)")
    for kind, tally in report["kinds"].items():
        answers = ", ".join(f"{k} ×{v}" for k, v in tally["answers"].items())
        extra = {k: v for k, v in tally.items() if k not in ("sent", "answers", "ms")}
        ms = tally.get("ms")
        timing = f"; ms p50 {ms['p50']} p99 {ms['p99']} max {ms['max']}" if ms else ""
        more = "".join(f"; {k} {v}" for k, v in extra.items())
        print(f"  {kind}: sent {tally['sent']}; {answers or 'no answer'}{timing}{more}")
    for kind, why in report["errors"].items():
        print(f"  {kind}: not run: {why}")
    for fault in report["faults"]:
        print(f"  FAULT {json.dumps(fault)[:400]}")


def parse_kinds(text: str) -> tuple[str, ...]:
    """Comma-separated kinds, each one of :data:`KINDS`.

    Raises:
        ValueError: an unknown kind, or none.
    """
    kinds = tuple(dict.fromkeys(k.strip() for k in text.split(",") if k.strip()))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(
            f"unknown kinds {', '.join(unknown) or '(none)'}; known: {', '.join(KINDS)}"
        )
    return kinds


SOURCE = "127.0.0.2"
"""The abuser's own address beside ``load_web.py``'s players (127.0.0.1, which that server
exempts from the per-address limits): the abuser meets every default limit."""


class AbuserProcess:
    """This script run as a separate process against ``url`` for ``duration`` seconds with
    more command-line ``options`` (connecting from :data:`SOURCE` unless they name a
    ``--source``), its report and log in ``workdir``: :meth:`wait_ready` once it is set up,
    :meth:`report` when it has ended, :meth:`close` in any case."""

    def __init__(self, url: str, duration: float, options: list[str], workdir: Path) -> None:
        self.duration = duration
        self.out, self.log = workdir / "abuse.json", workdir / "abuse.log"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--server", url]
        cmd += ["--duration", str(duration), "--json", *options]
        if "--source" not in options:
            cmd += ["--source", SOURCE]
        with self.out.open("wb") as out, self.log.open("wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=log)

    def _log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Wait until the abuser is set up (its :data:`READY` line).

        Raises:
            RuntimeError: it exited first, or was not ready in ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while READY not in self.log.read_text(errors="replace"):
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"the abuser exited ({self.proc.returncode}): {self._log_tail()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"the abuser was not set up in {timeout:g} s")
            time.sleep(0.1)

    def report(self) -> dict[str, Any]:
        """The abuser's report, once it has ended (it ends by itself after its duration).

        Raises:
            RuntimeError: it failed, or was still running well after its duration.
        """
        try:
            self.proc.wait(self.duration + STOP_GRACE + 30)
        except subprocess.TimeoutExpired:
            raise RuntimeError("the abuser did not stop after its duration") from None
        if self.proc.returncode != 0:
            raise RuntimeError(f"the abuser failed ({self.proc.returncode}): {self._log_tail()}")
        found: dict[str, Any] = json.loads(self.out.read_text())
        return found

    def close(self) -> None:
        """Kill the abuser if it still runs."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


OPTIONS = {
    "hint_burst": "hints asked at once (20: an address's minute)",
    "analysis_burst": "analyses uploaded at once (6: an address's minute)",
    "analysis_drops": "of each burst, uploads whose connection is closed at once (3)",
    "practice_per_minute": "practice games of past days started a minute (20)",
    "signin_burst": "wrong sign-ins at once (10: an address's minute)",
    "slow_bodies": "connections holding a body open (50)",
    "slow_headers": "connections sending headers a byte at a time (300)",
    "header_interval": "seconds between two bytes of a slow header (1)",
    "flood_rate": "the flood's messages a second (0: as fast as it can)",
    "request_timeout": "seconds without an answer that make a request a fault (30)",
    "analysis_timeout": "the same for an analysis (120)",
}
"""The tuning options (``--hint-burst`` …): :class:`AbuseConfig`'s fields."""


def main(argv: list[str] | None = None) -> int:
    defaults = AbuseConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", required=True, help="the server's URL, http://host:port")
    parser.add_argument("--duration", type=float, default=defaults.duration, help="seconds")
    parser.add_argument("--only", default=",".join(KINDS), help=f"kinds: {', '.join(KINDS)}")
    for name, text in OPTIONS.items():
        default = getattr(defaults, name)
        parser.add_argument(
            f"--{name.replace('_', '-')}", type=type(default), default=default, help=text
        )
    parser.add_argument("--seed", type=int, help="of the records' seeds and days (default: new)")
    parser.add_argument(
        "--source", default="", help="the local address to connect from (e.g. 127.0.0.2)"
    )
    parser.add_argument(
        "--nice", type=int, default=0, help="lower this process's CPU priority by N (0-19)"
    )
    parser.add_argument(
        "--cpus", default="", help="run on these CPUs only (Linux's list notation, e.g. 1)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    try:
        kinds = parse_kinds(args.only)
    except ValueError as exc:
        parser.error(str(exc))
    values = {name: getattr(args, name) for name in OPTIONS}
    may_be_zero = ("analysis_drops", "slow_bodies", "slow_headers", "flood_rate")
    bad = [n for n, v in values.items() if v < 0 or (v == 0 and n not in may_be_zero)]
    bad += ["duration"] if args.duration <= 0 else []
    if bad:
        named = ", ".join("--" + n.replace("_", "-") for n in bad)
        parser.error(f"{named}: must be positive (crowds, drops and the flood rate may be 0)")
    if args.analysis_drops > args.analysis_burst:
        parser.error("--analysis-drops: at most --analysis-burst")
    if not 0 <= args.nice <= 19:
        parser.error("--nice: from 0 to 19")
    if args.nice:
        os.nice(args.nice)  # on one machine with the server: the attacker's CPU is not its own
    try:
        cpus = cpu_list(args.cpus)
    except ValueError as exc:
        parser.error(f"--cpus: {exc}")
    if cpus:
        os.sched_setaffinity(0, cpus)  # on one machine: as if the attacker were another
    cfg = AbuseConfig(
        duration=args.duration, kinds=kinds, seed=args.seed, source=args.source, **values
    )
    report = asyncio.run(Abuser(args.server, cfg).run())
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
