"""Server settings, read from the environment (prefix ``METROGAMES_``) or given directly.

``METROGAMES_DB`` (SQLAlchemy URL: ``sqlite:///var/metrogames.db`` by default, or
``postgresql+psycopg://user@host:port/db``), ``METROGAMES_HOST``, ``METROGAMES_PORT``,
``METROGAMES_BOT_DELAY`` (seconds between two bot actions, so clients can show them one by one)
``METROGAMES_CLOCK_UNIT`` (real seconds per turn-clock second: 1, or tiny in tests),
``METROGAMES_HANDOVER_GRACE`` (seconds a seat's player must have been gone, without a
connection or an action, before the host may hand the seat to a bot) and
``METROGAMES_DAILY_SECRET`` (the daily challenge's secret; when unset, a random one is made once
and kept in the database).
"""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DB = "sqlite:///var/metrogames.db"


class Settings(BaseSettings):
    """The web table's settings (see the module docstring for the environment names)."""

    model_config = SettingsConfigDict(env_prefix="METROGAMES_")

    db: str = DEFAULT_DB
    host: str = "127.0.0.1"
    port: int = 8000
    bot_delay: float = 0.6
    clock_unit: float = 1.0
    handover_grace: float = 30.0
    daily_secret: str | None = None
