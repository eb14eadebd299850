"""The JSON Schema of the web table's documents: ``docs/web-schema.json``.

Contract: ``docs/web-api.md``, "Views", "Rooms" and "Playing". :func:`schema_document` builds
it (JSON Schema 2020-12, with pydantic) from the typed dicts of :mod:`~metrogames.web.rooms.views` — a view's common
keys, the room summary, the replay, the WebSocket's server messages — the WebSocket's client
messages (:mod:`.bodies`) and, for each game family, its part of a view: the registry's
``view_type`` of the family's games. ``scripts/build_schema.py`` writes the file; a test
builds it again and compares, so the two cannot drift.

Definitions (``$defs``): ``View`` (one of ``<Family>View`` — a closed object: the common keys,
the family's own, ``family`` naming it — or ``OtherView``: a game of another family, its own
keys free), ``RoomSummary``, ``Replay``, ``ServerMessage`` (``ViewMessage``, ``ErrorMessage``,
``ChatPush``), ``ClientMessage``, ``Lobby`` (``GET /api/lobby``, its ``LobbyEntry`` items
the lobby's event stream sends too), ``Friends`` (``GET /api/friends``) and ``NowPlaying``
(``GET /api/watch`` and each ``snapshot`` of its event stream). Objects are closed (no key
beyond those listed) unless
their values are free (a map such as ``lines`` by colour).
"""

from __future__ import annotations

from pydantic import TypeAdapter
from pydantic.json_schema import JsonSchemaValue

from metrogames.games import game_names, game_type
from metrogames.web.api import bodies, friends
from metrogames.web.lobby import entries
from metrogames.web.rooms import views
from metrogames.web.watch import entries as watching

# The schema's objects are pydantic's own type for them (JsonSchemaValue, its dict of any values),
# read and rewritten here at depth (a JsonObject would need a check at every level of a
# document pydantic made).
DIALECT = "https://json-schema.org/draft/2020-12/schema"
REF = "#/$defs/{model}"


def families() -> dict[str, type]:
    """Family -> the typed dict of its part of a view, for every registered game that gives
    one (``GameType.view_type``), in the registry's order.

    Raises:
        ValueError: two games of one family with different view types.
    """
    out: dict[str, type] = {}
    for name in game_names():
        kind = game_type(name)
        family = kind.family or kind.name
        if kind.view_type is None:
            continue
        if out.setdefault(family, kind.view_type) is not kind.view_type:
            raise ValueError(f"the games of family {family!r} give different view types")
    return out


def schema_document() -> JsonSchemaValue:
    """The JSON Schema document of ``docs/web-schema.json``."""
    parts = families()
    inputs: list[tuple[str, type]] = [
        ("ViewCommon", views.ViewCommon),
        ("RoomSummary", views.RoomSummary),
        ("Replay", views.Replay),
        ("ViewMessage", views.ViewMessage),
        ("ErrorMessage", views.ErrorMessage),
        ("ChatPush", views.ChatPush),
        ("Lobby", entries.Lobby),
        ("Friends", friends.FriendsList),
        ("NowPlaying", watching.NowPlaying),
        *((f"part:{family}", part) for family, part in parts.items()),
    ]
    _, found = TypeAdapter.json_schemas(
        [(key, "serialization", TypeAdapter(kind)) for key, kind in inputs], ref_template=REF
    )
    defs: JsonSchemaValue = found.get("$defs", {})
    common = defs.pop("ViewCommon")
    view_names = []
    for family, part in parts.items():
        name = part.__name__.removesuffix("Part") if part.__name__.endswith("ViewPart") else None
        name = name or f"{_camel(family)}View"
        defs[name] = _view(common, defs.pop(part.__name__), family, name)
        view_names.append(name)
    defs["OtherView"] = _other_view(common, list(parts))
    defs["View"] = {
        "description": 'A view (docs/web-api.md, "Views"): by its family.',
        "oneOf": [{"$ref": REF.format(model=n)} for n in [*view_names, "OtherView"]],
    }
    _frames_are_views(defs)
    client = bodies.Message.model_json_schema(ref_template=REF)
    defs.update(client.pop("$defs", {}))
    client.pop("title", None)
    defs["ClientMessage"] = {
        **client,
        "description": 'A WebSocket message from the client (docs/web-api.md, "Playing").',
    }
    defs["ServerMessage"] = {
        "description": 'A WebSocket message from the server (docs/web-api.md, "Playing").',
        "oneOf": [
            {"$ref": REF.format(model=n)} for n in ("ViewMessage", "ErrorMessage", "ChatPush")
        ],
    }
    for schema in defs.values():
        _close(schema)
    return {
        "$schema": DIALECT,
        "title": "metrogames web table: views, room summaries, replays, WebSocket messages, lobby, "
        "friends",
        "description": "Generated from the code by scripts/build_schema.py (docs/web-api.md).",
        "$defs": dict(sorted(defs.items())),
    }


def _camel(family: str) -> str:
    return "".join(word.capitalize() for word in family.replace("-", "_").split("_"))


def _view(common: JsonSchemaValue, part: JsonSchemaValue, family: str, name: str) -> JsonSchemaValue:
    """A family's closed view: the common keys, the part's between ``winners`` and ``legal``
    (the part's ``scores`` wins: its items are typed closer), ``family`` a constant."""
    properties = dict(common["properties"])
    tail = {key: properties.pop(key) for key in ("scores", "solo", "legal")}
    properties.update(part["properties"])
    for key, value in tail.items():
        properties.setdefault(key, value)
    properties["family"] = {"const": family}
    required = [*common["required"], *(k for k in part["required"] if k not in common["required"])]
    return {
        "title": name,
        "description": f"A view of a game of the {family} family. {part.get('description', '')}",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _other_view(common: JsonSchemaValue, known: list[str]) -> JsonSchemaValue:
    """The view of a game of a family the schema does not list: the common keys, typed, and
    the game's own keys, free."""
    properties = dict(common["properties"])
    properties["family"] = {"type": "string", "not": {"enum": known}}
    return {
        "title": "OtherView",
        "description": "A view of a game of another family (a plug-in): the common keys; the "
        "game's own keys are free. " + common.get("description", ""),
        "type": "object",
        "properties": properties,
        "required": common["required"],
        "additionalProperties": True,
    }


def _frames_are_views(defs: JsonSchemaValue) -> None:
    """A replay's frames and a view message's view are ``View`` s (typed as plain dicts
    in :mod:`~metrogames.web.rooms.views`: their keys depend on the family)."""
    defs["Replay"]["properties"]["frames"]["items"] = {"$ref": REF.format(model="View")}
    defs["ViewMessage"]["properties"]["view"] = {"$ref": REF.format(model="View")}


def _close(schema: object) -> None:
    """Close every object schema that lists its keys, and drop pydantic's property titles
    (the key's own name, capitalised)."""
    if isinstance(schema, list):
        for item in schema:
            _close(item)
        return
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema.setdefault("additionalProperties", False)
        for value in properties.values():
            if isinstance(value, dict):
                value.pop("title", None)
    for key, value in schema.items():
        if key != "properties" or isinstance(value, dict):
            _close(value if key != "properties" else list(value.values()))
