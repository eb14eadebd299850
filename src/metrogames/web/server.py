"""How ``metrogames serve`` runs the app under uvicorn.

WebSocket frames are capped by the protocol (:data:`~metrogames.web.api.ws.FRAME_LIMIT`): a larger
message is refused with close code 1009 before it is buffered. uvicorn's own handling of
``X-Forwarded-For`` is off: the app trusts it only from the configured proxies
(:func:`~metrogames.web.app.create_app`). ``metrogames serve --workers N`` runs N processes
under uvicorn's process manager (:func:`worker_config`), each building its app with
:func:`worker_app` from the environment (the CLI puts its options there). Logs: structured lines
(:mod:`~metrogames.web.infra.logs`).
"""

from __future__ import annotations

import gc

import uvicorn
from fastapi import FastAPI

from metrogames.core.capabilities import Boards, Presented
from metrogames.games import game_engine, game_names, load_game
from metrogames.web.api.ws import FRAME_LIMIT, upgrade_refusal
from metrogames.web.app import create_app
from metrogames.web.infra import deadlines
from metrogames.web.infra.config import Settings
from metrogames.web.infra.logs import log_config

GRACEFUL_SECONDS = 5
"""At shutdown: how long requests still under way may take before they are cancelled (one
that waits for a heavy job then gives it up: the job is dropped or stopped)."""
GC_THRESHOLDS = (5_000, 10, 100)
"""The collector's thresholds while serving (Python's default: 700, 10, 10): a young collection
every 5,000 allocations net, a middle one every 10 of those, a full one at most every 100 middle
ones (and, as always, only once the old objects have grown by a quarter)."""


def guard(app: FastAPI, settings: Settings) -> None:
    """Ready this process's HTTP protocol for ``app``: the limits of
    :class:`~metrogames.web.infra.deadlines.GuardedHttp` from ``settings``, and its shortcut
    refusing the upgrades of the addresses ``app`` told to wait (not behind trusted proxies:
    there the client's address is found by the app's proxy middleware)."""
    deadlines.configure(settings)
    told = None if settings.trusted_proxies else app.state.told
    if told is None:
        deadlines.refuse_upgrades(None)
    else:
        deadlines.refuse_upgrades(upgrade_refusal(told), told.tarpit)


def server_config(app: FastAPI, settings: Settings) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` on ``settings.host``:``settings.port`` (HTTP by
    :class:`~metrogames.web.infra.deadlines.GuardedHttp`, readied by :func:`guard`)."""
    guard(app, settings)
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=deadlines.IMPORT_PATH,
        ws=deadlines.WS_IMPORT_PATH,
        log_config=log_config(settings.log_format, settings.log_level),
        log_level=settings.log_level,
        ws_max_size=FRAME_LIMIT,
        proxy_headers=False,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )


def worker_app() -> FastAPI:
    """One worker's app, its settings read from the environment (``METROGAMES_*``)."""
    settings = Settings()
    app = create_app(settings)
    guard(app, settings)
    settle_heap()
    return app


def settle_heap() -> None:
    """Ready a serving process's heap: every game imported and one game of each made, viewed
    and drawn (their lazily built tables filled), everything alive then frozen out of the
    garbage collector's sight (:func:`gc.freeze`), and collections made rarer
    (:data:`GC_THRESHOLDS`).

    A full collection walks every object the collector tracks: start-up leaves about 150,000
    (modules, the games' data), and under load a worker's full collections paused it for
    100–300 ms, in the round trip of every action in flight. Frozen, they are never walked
    again (they live as long as the process); a full collection then walks the rooms alone."""
    for name in game_names():
        state = load_game(name).new_game(0)
        if isinstance(state, Presented):
            state.view_json(0)
        engine = game_engine(name)
        if isinstance(engine, Boards):
            engine.board_json()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def worker_config(settings: Settings, workers: int) -> uvicorn.Config:
    """uvicorn's configuration for ``workers`` processes of :func:`worker_app` sharing
    ``settings.host``:``settings.port`` (a dead worker is started again by uvicorn)."""
    return uvicorn.Config(
        "metrogames.web.server:worker_app",
        factory=True,
        workers=workers,
        host=settings.host,
        port=settings.port,
        http=deadlines.IMPORT_PATH,
        ws=deadlines.WS_IMPORT_PATH,
        log_config=log_config(settings.log_format, settings.log_level),
        log_level=settings.log_level,
        ws_max_size=FRAME_LIMIT,
        proxy_headers=False,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
