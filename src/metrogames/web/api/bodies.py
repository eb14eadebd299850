"""The request bodies and WebSocket messages of ``docs/web-api.md``, declared as pydantic models.

Every body is decoded from its raw bytes by :func:`parse` (pydantic's JSON parser): valid UTF-8
text without lone surrogates, objects without unknown keys, values of the declared types (no
string for a number, no ``true`` for ``1``), finite numbers, bounded lengths and nesting. Free
JSON (actions, options, records) is a :data:`Json` value: at most :data:`MAX_DEPTH` levels
deep. Anything else is a 400 ``bad-request`` naming the field (or, for text that is not JSON,
the place), and nothing of it reaches the service.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    RootModel,
    StringConstraints,
    ValidationError,
    model_validator,
)

from metrogames import i18n
from metrogames.i18n import N_, msg, plural
from metrogames.web.accounts.names import account_name
from metrogames.web.checks import chat_text, human_name, known_bot, normal_name
from metrogames.web.errors import bad_request, shown

MAX_TURN_CLOCK = 7 * 24 * 3600
"""The longest turn clock, in seconds (7 days: turn-based games by correspondence)."""

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects in free JSON (a record needs about 8)."""
MAX_SEATS = 16
MAX_KEYS = 64


def _bounded_json(value: JsonValue) -> JsonValue:
    """``value`` when it nests at most :data:`MAX_DEPTH` deep and holds finite numbers only.

    Raises:
        ValueError: the rule it breaks (pydantic reports it at the field).
    """
    stack: list[tuple[JsonValue, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError(msg(N_("numbers must be finite")))
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise ValueError(msg(N_("JSON nests at most {n} levels deep"), n=MAX_DEPTH))
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return value


Json = Annotated[JsonValue, AfterValidator(_bounded_json)]
"""Free JSON: an action, options or a record."""
Name = Annotated[str, StringConstraints(max_length=256), AfterValidator(normal_name)]
HumanName = Annotated[str, StringConstraints(max_length=256), AfterValidator(human_name)]
"""A person's name: not one starting ``bot:`` (the bots')."""
"""A display name (:func:`~metrogames.web.checks.normal_name`)."""
BotCode = Annotated[str, StringConstraints(max_length=64), AfterValidator(known_bot)]
Token = Annotated[str, StringConstraints(max_length=256)]


class Body(BaseModel):
    """A request body: an object with exactly the declared keys, strictly typed."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class SeatSpec(Body):
    """A seat of a new room: a human (with a name, or open in an online room) or a bot (its
    name, given or not, is written ``bot:NAME``)."""

    name: Name | None = None
    bot: BotCode | None = None

    @model_validator(mode="after")
    def _people_are_not_bots(self) -> SeatSpec:
        if self.bot is None and self.name is not None:
            human_name(self.name)
        return self


class RoomBody(Body):
    """``POST /api/rooms``."""

    game: Annotated[str, StringConstraints(max_length=64)]
    mode: Literal["solo", "bots", "hotseat", "online"]
    seats: Annotated[list[SeatSpec], Field(min_length=1, max_length=MAX_SEATS)]
    options: Annotated[dict[str, Json], Field(max_length=MAX_KEYS)] | None = None
    turn_clock: Annotated[int, Field(ge=10, le=MAX_TURN_CLOCK)] | None = None
    tutorial: bool = False
    """Deal the game's fixed guided-first-game deal (``web/rooms/tutorial.py``)."""
    listed: bool = False
    """List the online room in the lobby (``GET /api/lobby``); else it is found by its link."""


class JoinBody(Body):
    """``POST /api/rooms/{room}/join``."""

    seat: Annotated[int, Field(ge=0, lt=MAX_SEATS)]
    name: HumanName | None = None


class HandoverBody(Body):
    """``POST /api/rooms/{room}/seats/{seat}/bot``."""

    bot: BotCode


class NoBody(Body):
    """An empty object (or no body): ``start``, ``reclaim``."""


class ActionBody(Body):
    """``POST /api/rooms/{room}/actions``."""

    action: Json
    step: Annotated[int, Field(ge=0, le=10**6)]


class HintBody(Body):
    """``POST /api/rooms/{room}/hint``: the view's ``step`` and, optionally, the move the
    player is about to make."""

    step: Annotated[int, Field(ge=0, le=10**6)]
    about: Json = None


class DailyStartBody(Body):
    """``POST /api/daily/{game}/{date}/start``."""

    share: bool = False


class PlayerBody(Body):
    """``POST /api/players``, ``PATCH /api/players/me``."""

    name: HumanName


Password = Annotated[str, StringConstraints(min_length=8, max_length=256)]
"""A password: 8 to 256 characters, kept as given (only its argon2id hash is stored)."""


AccountName = Annotated[str, StringConstraints(max_length=256), AfterValidator(account_name)]
"""An account's name (:func:`~metrogames.web.accounts.names.account_name`: PRECIS, RFC 8265)."""


class AccountBody(Body):
    """``POST /api/accounts`` (sign up)."""

    name: AccountName
    password: Password


class SignInBody(Body):
    """``POST /api/sessions``: the name as the account was named (any text: names kept from
    before today's rules sign in too) and the password."""

    name: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    password: Password


class AccountNameBody(Body):
    """``PATCH /api/accounts/me``."""

    name: AccountName


class ExportNameBody(Body):
    """``PUT /api/accounts/me/export-name``: whether the monthly exports show the account's
    name (false: its pseudonym)."""

    show: bool


class PasswordBody(Body):
    """``POST /api/accounts/me/password``: the current password and the new one."""

    password: Password
    new_password: Password


ChatText = Annotated[str, StringConstraints(max_length=1024), AfterValidator(chat_text)]
"""A table chat message (:func:`~metrogames.web.checks.chat_text`)."""


class ChatBody(Body):
    """``POST /api/rooms/{room}/chat``."""

    text: ChatText


class Hello(Body):
    """WebSocket ``{"type": "hello", "token": <seat token> | null}``."""

    type: Literal["hello"]
    token: Token | None


class ActionMessage(ActionBody):
    """WebSocket ``{"type": "action", "action", "step"}``."""

    type: Literal["action"]


class ChatMessage(ChatBody):
    """WebSocket ``{"type": "chat", "text"}``."""

    type: Literal["chat"]


class Message(
    RootModel[Annotated[Hello | ActionMessage | ChatMessage, Field(discriminator="type")]]
):
    """A WebSocket message: a :class:`Hello`, an :class:`ActionMessage` or a
    :class:`ChatMessage` (by ``type``)."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, frozen=True)


class Record(RootModel[Annotated[dict[str, Json], Field(max_length=MAX_KEYS)]]):
    """``POST /api/replays``: a record (checked by the engine, ``docs/notation.md``)."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, frozen=True)


M = TypeVar("M", bound=BaseModel)
_POSITION = re.compile(r"line (\d+) column (\d+)")


def parse(model: type[M], raw: bytes | str, what: str) -> M:
    """``raw`` (no body at all reads as ``{}``) decoded as ``model``.

    Raises:
        RoomError: 400 ``bad-request`` naming the field and the rule, e.g.
            ``a join: name: a name needs a visible character``.
    """
    try:
        return model.model_validate_json(raw or b"{}")
    except ValidationError as exc:
        raise bad_request(describe(exc, raw, what)) from None


def describe(exc: ValidationError, raw: bytes | str, what: str) -> i18n.Message:
    """The message of a refused body, translatable: the first problem, where it is (the
    field) and what is wrong, in the project's words, not pydantic's (``what``, e.g. ``a
    join``, is translated when marked; a rule of :mod:`.checks` broken by a field keeps its
    own message)."""
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    kind, ctx = first["type"], first.get("ctx") or {}
    label = i18n.Message(what)
    if kind == "json_invalid":
        found = _POSITION.search(str(ctx.get("error", first["msg"])))
        line, column = found.groups() if found else ("?", "?")
        lone = _lone_surrogate(raw, found) if "escape" in str(ctx.get("error", "")) else ""
        if lone:
            return msg(
                N_(
                    "{what} is not JSON of valid text: lone surrogate {escape} (half of a "
                    "\\ud800–\\udfff pair without the other half) at line {line}, column "
                    "{column}{near}"
                ),
                what=label,
                escape=lone,
                line=line,
                column=column,
                near=_near(raw, str(ctx.get("error", ""))),
            )
        return msg(
            N_(
                "{what} is not JSON of valid text (UTF-8, no lone surrogate \\ud800–\\udfff): "
                "line {line}, column {column}{near}"
            ),
            what=label,
            line=line,
            column=column,
            near=_near(raw, str(ctx.get("error", ""))),
        )
    place = ".".join(_key(p) for p in first["loc"])
    problem = problem_of(kind, ctx.get("error"))
    if len(errors) > 1:
        more = plural(" (and {n} more problem)", " (and {n} more problems)", len(errors) - 1)
        problem = i18n.Message("{a}{b}", {"a": problem, "b": more})
    if not place:
        return msg(N_("{what}: {rule}"), what=label, rule=problem)
    return msg(N_("{what}: {place}: {rule}"), what=label, place=place, rule=problem)


_TYPES = {
    "string": N_("text"),
    "int": N_("a whole number"),
    "float": N_("a number"),
    "bool": N_("true or false"),
    "list": N_("an array"),
    "tuple": N_("an array"),
    "dict": N_("an object"),
    "model": N_("an object"),
    "literal": N_("one of the documented values"),
}


def problem_of(kind: str, rule: object) -> i18n.Message:
    """What is wrong with a field, by pydantic's error ``kind`` (``int_type``,
    ``extra_forbidden``, ...); a rule of :mod:`.checks` keeps its message."""
    if kind == "value_error" and isinstance(rule, ValueError) and rule.args:
        text = rule.args[0]
        return text if isinstance(text, i18n.Message) else msg(N_("this value is not accepted"))
    if kind == "extra_forbidden":
        return msg(N_("unknown key"))
    if kind == "missing":
        return msg(N_("missing"))
    expected = kind.split("_", maxsplit=1)[0]
    if expected in _TYPES and kind.endswith(("_type", "_parsing", "_error")):
        return msg(N_("should be {type}"), type=i18n.Message(_TYPES[expected]))
    if kind.startswith("literal") or kind.startswith("enum"):
        return msg(N_("should be {type}"), type=i18n.Message(_TYPES["literal"]))
    if kind.endswith("_too_long") or kind.startswith("less_than"):
        return msg(N_("too long or too large"))
    if kind.endswith("_too_short") or kind.startswith("greater_than"):
        return msg(N_("too short or too small"))
    return msg(N_("this value is not accepted"))


def _key(part: int | str) -> str:
    """A step of a field's place: an index or a key (quoted unless a plain word)."""
    return str(part) if isinstance(part, int) or part.isidentifier() else shown(part)


_SURROGATE = re.compile(r"(?<!\\)((?:\\\\)*)(\\u[dD][89a-fA-F][0-9a-fA-F]{2})")
"""A ``\\uD800``–``\\uDFFF`` escape (not one whose backslash is itself escaped)."""


def _lone_surrogate(raw: bytes | str, found: re.Match[str] | None) -> str:
    """The surrogate escape (``\\ud800``) the JSON parser stopped at or just after — the last
    one before the error's place on its line — or ``""`` when there is none. The parser
    words a lone surrogate differently by what follows it (``lone leading surrogate in hex
    escape``, ``unexpected end of hex escape``), so the text itself is read."""
    if found is None:
        return ""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    lines = text.split("\n")
    number, column = int(found.group(1)), int(found.group(2))
    if not 0 < number <= len(lines):
        return ""
    before = lines[number - 1][:column]
    escapes = [m.group(2) for m in _SURROGATE.finditer(before)]
    return escapes[-1] if escapes else ""


def _near(raw: bytes | str, error: str) -> i18n.Message:
    """`` (at '...')``: where a JSON parse error is — the text from just before the value (or
    key) it is in, so the message shows the key the bad value belongs to (empty when the
    error names no place)."""
    found = _POSITION.search(error)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    lines = text.split("\n")
    if not found or not 0 < int(found.group(1)) <= len(lines):
        return i18n.verbatim("")
    line = lines[int(found.group(1)) - 1]
    end = min(int(found.group(2)), len(line))
    start = max(line.rfind(",", 0, end - 1), line.rfind(":", 0, end - 1)) + 1  # the value's start
    value = line[start:end]
    value = value if len(value) <= 20 else value[:20] + "…"
    return msg(N_(" (at {text})"), text=shown(line[max(0, start - 30) : start] + value, 80))


GameName = Annotated[str, StringConstraints(min_length=1, max_length=64)]
"""A game's registry name (checked against the registry by its route)."""


class BotAccountBody(Body):
    """``PUT /api/accounts/me/bot``: the games the bot declares, and whether it plays in the
    human rating pools."""

    games: Annotated[list[GameName], Field(min_length=1, max_length=MAX_KEYS)]
    human_pools: bool = False


class BotTokenBody(Body):
    """``POST /api/accounts/me/bot/tokens``: a label and the token's scopes."""

    name: Name
    scopes: Annotated[list[Literal["read", "play"]], Field(min_length=1, max_length=2)]


class InvitationBody(Body):
    """``POST /api/rooms/{room}/invitations``: the seat offered and the invited account."""

    seat: Annotated[int, Field(ge=0, lt=MAX_SEATS)]
    account: Annotated[str, StringConstraints(min_length=1, max_length=64)]


class BotJoinBody(Body):
    """``POST /api/bot/rooms/{room}/join``: the seat a bot takes."""

    seat: Annotated[int, Field(ge=0, lt=MAX_SEATS)]


class PersonInvitationBody(Body):
    """``POST /api/invitations``: the room, the seat offered and the invited account's name."""

    room: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    seat: Annotated[int, Field(ge=0, lt=MAX_SEATS)]
    to: Annotated[str, StringConstraints(min_length=1, max_length=64)]
