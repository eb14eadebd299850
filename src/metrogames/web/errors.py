"""The refusal type every layer of the web table raises, and its two helpers.

Refusals are :class:`RoomError` (HTTP status, reason code from ``docs/web-api.md``, "Errors",
and a message naming the problem, translatable when given as a :class:`~metrogames.i18n.Message`);
the API turns them into ``{"error", "reason"}`` bodies in the client's language. This module
imports nothing of the web table: routes, the room core, the features and the infrastructure
all import it.
"""

from __future__ import annotations

from metrogames.i18n import Gettext, Message


class RoomError(Exception):
    """A refusal: ``status`` (4xx), ``reason`` (``docs/web-api.md``, "Errors") and message.

    ``message`` is English text or a translatable :class:`~metrogames.i18n.Message` (kept as
    ``text``; ``message`` is then its English rendering). The message is kept as valid text (a
    lone surrogate quoted from the input would make the response unencodable): anything that is
    not is shown as a backslash escape. ``headers`` go with the answer (e.g. ``Retry-After``);
    ``item`` is the engine's offending item (``IllegalActionError.item``), sent as data.
    """

    def __init__(
        self,
        status: int,
        reason: str,
        message: str | Message,
        headers: dict[str, str] | None = None,
        item: dict[str, object] | None = None,
    ) -> None:
        self.text = message if isinstance(message, Message) else None
        english = _valid(str(message))
        super().__init__(english)
        self.status = status
        self.reason = reason
        self.message = english
        self.headers = headers
        self.item = item

    def __reduce__(
        self,
    ) -> tuple[
        type[RoomError],
        tuple[int, str, str | Message, dict[str, str] | None, dict[str, object] | None],
    ]:
        return type(self), (
            self.status,
            self.reason,
            self.text or self.message,
            self.headers,
            self.item,
        )

    def body(self, gettext: Gettext) -> dict[str, object]:
        """The JSON of the refusal: ``{"error", "reason"}`` (the error in the language of
        ``gettext``), and ``"item"`` when the engine named the offending item."""
        out: dict[str, object] = {"error": self.localized(gettext), "reason": self.reason}
        if self.item is not None:
            out["item"] = self.item
        return out

    def localized(self, gettext: Gettext) -> str:
        """The message in the language of ``gettext`` (English when it has no translation)."""
        return self.message if self.text is None else _valid(self.text.render(gettext))


def _valid(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def bad_request(message: str | Message) -> RoomError:
    """A 400 ``bad-request`` refusal."""
    return RoomError(400, "bad-request", message)


def shown(value: object, limit: int = 40) -> str:
    """``value`` quoted for a message: at most ``limit`` characters, anything unprintable
    escaped (``repr``)."""
    text = str(value)
    return repr(text[:limit] + ("…" if len(text) > limit else ""))
