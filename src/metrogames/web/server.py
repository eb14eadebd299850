"""How ``metrogames serve`` runs the app under uvicorn.

WebSocket frames are capped by the protocol (:data:`~metrogames.web.ws.FRAME_LIMIT`): a larger
message is refused with close code 1009 before it is buffered. uvicorn's own handling of
``X-Forwarded-For`` is off: the app trusts it only from the configured proxies
(:func:`~metrogames.web.app.create_app`). Logs: structured lines (:mod:`.logs`).
"""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI

from metrogames.web.config import Settings
from metrogames.web.logs import log_config
from metrogames.web.ws import FRAME_LIMIT


def server_config(app: FastAPI, settings: Settings) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` on ``settings.host``:``settings.port``."""
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=log_config(settings.log_format, settings.log_level),
        log_level=settings.log_level,
        ws_max_size=FRAME_LIMIT,
        proxy_headers=False,
    )
