"""Issue 22's rules read from the source: no game named above ``games/`` (Python and the
browser client, ``docs/architecture.md`` "One interface for every game"), one function that
changes a room's copy in memory ("One way to change a room"), function-level imports only
where a command or an extra needs them, and no ``Any`` where a real type exists.

Each rule's finder is tested on a small source of its own, so that a finder that sees nothing
cannot pass for a clean package."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from metrogames.games import game_names

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "metrogames"
ABOVE_GAMES = ("bots", "sim", "envs", "web", "cli")
JS = PACKAGE / "web" / "static" / "js"

GAME_KNOWERS = {
    "cli/render/": "the terminal's renderers draw one family's board each",
    "envs/common.py": "the observation encoders by family (Metro's family is `metro`)",
    "envs/gym_nextstation.py": "the Next Station environment: its default city",
    "envs/pz_nextstation.py": "the Next Station environment: its default city",
    "envs/pz_metro.py": "the Metro environment makes Metro",
    "envs/__init__.py": "the published Gymnasium ids of London and Paris, docs/research.md",
    "sim/bench.py": "the engine benchmark's named scenarios, compared across versions",
    "cli/commands/tables.py": "`metrogames play`'s default game",
}
"""Files above ``games/`` that may name a built-in game, and why: each is about one family
or is a published name (a Gymnasium id, a benchmark scenario, a default argument)."""

ROOM_FACTS = {"progress", "seats", "status", "deadline", "bots_due"}
"""A room copy's (``Table``'s) fields that only ``rooms/changes.py``'s ``apply_change`` sets."""

LAZY_IMPORTERS = {
    "cli/commands/": "a command imports the web table, the simulator or the job worker it runs",
    "envs/__init__.py": "PettingZoo's environments load the optional pettingzoo",
}
"""The modules that may import part of the package inside a function, and why."""


def python_sources(*parts: str) -> Iterator[tuple[str, Path]]:
    for part in parts:
        for path in sorted((PACKAGE / part).rglob("*.py")):
            yield path.relative_to(PACKAGE).as_posix(), path


def named_games(source: str, names: set[str]) -> list[int]:
    """The lines of ``source`` (Python) with a string constant that is one of ``names``,
    docstrings left out."""
    tree = ast.parse(source)
    docs = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in names and id(node) not in docs
    )


def js_code(source: str) -> str:
    """``source`` (JavaScript) without its comments, strings and template texts kept."""
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return re.sub(r"(^|\s)//.*$", r"\1", source, flags=re.M)


def js_named_games(source: str, names: set[str]) -> list[str]:
    """The words of ``source``'s code (not its comments) that are one of ``names``, a module
    path (``./board-metro.js``) and a text key (``"metro.tile"``) left out."""
    code = re.sub(r"""["'`]\./[\w-]+\.js["'`]""", "", js_code(source))
    code = re.sub(r"""["'`][\w-]+(\.[\w-]+)+["'`]""", "", code)  # a text key, "metro.board"
    return [w for w in re.findall(r"(?<![\w.-])[a-z]\w*(?![\w-])", code) if w in names]


def room_fact_writes(source: str) -> list[int]:
    """The lines of ``source`` that assign a :data:`ROOM_FACTS` field of a name ``table``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for leaf in ast.walk(target):
                if (
                    isinstance(leaf, ast.Attribute)
                    and isinstance(leaf.value, ast.Name)
                    and leaf.value.id == "table"
                    and leaf.attr in ROOM_FACTS
                    and isinstance(leaf.ctx, ast.Store)
                ):
                    out.append(leaf.lineno)
    return out


def lazy_package_imports(source: str) -> list[int]:
    """The lines of ``source`` that import ``metrogames`` inside a function."""
    out = []
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.ImportFrom):
                names = ["." * node.level + (node.module or "")]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(n.startswith(".") or n.split(".")[0] == "metrogames" for n in names):
                out.append(node.lineno)
    return sorted(set(out))


BUILT_IN = {"london", "paris", "metro"}


def test_the_built_in_games_are_the_ones_checked() -> None:
    assert set(game_names()) >= BUILT_IN


def test_no_game_is_named_above_the_games() -> None:
    wrong = []
    for rel, path in python_sources(*ABOVE_GAMES):
        if rel.startswith(tuple(GAME_KNOWERS)):
            continue
        wrong += [f"{rel}:{line}" for line in named_games(path.read_text("utf-8"), BUILT_IN)]
    assert not wrong, wrong


def test_every_game_knower_still_names_a_game() -> None:
    """An exception that no longer needs to be one is removed from :data:`GAME_KNOWERS`."""
    idle = []
    for known in GAME_KNOWERS:
        found = [
            line
            for rel, path in python_sources(*ABOVE_GAMES)
            if rel.startswith(known)
            for line in named_games(path.read_text("utf-8"), BUILT_IN)
        ]
        if not found:
            idle.append(known)
    assert not idle, idle


def test_the_game_name_finder_skips_docstrings_only() -> None:
    source = '"""A london docstring."""\nx = "paris"\ndef f(game="metro"):\n    "london"\n'
    assert named_games(source, BUILT_IN) == [2, 3]


JS_WORDS_NOT_GAMES = {"dom.js": ["metro", "metro"], "play-nextstation.js": ["metro"]}
"""Words of the client that are spelled as a game and are not one: ``metro``, the kind of a
Paris card (``metro-…`` card ids, docs/notation.md); listed one by one, so a game named beside
them is still seen."""


def test_the_browser_client_names_a_game_only_in_its_tables_of_words_and_families() -> None:
    """``families.js`` keys the screens by family (Metro's family is ``metro``) and
    ``games.js`` holds each built-in game's words (title, blurb, rules page); no other
    module names a game."""
    found = {path.name: js_named_games(path.read_text("utf-8"), BUILT_IN) for path in JS.glob("*.js")}
    wrong = {
        name: words
        for name, words in sorted(found.items())
        if name not in ("families.js", "games.js") and words != JS_WORDS_NOT_GAMES.get(name, [])
    }
    assert not wrong, wrong


def test_the_js_game_finder_sees_code_not_comments_paths_or_text_keys() -> None:
    source = (
        "// london\n/* paris */\nimport { x } from './board-metro.js';\n"
        't("metro.tile");\nconst E = { london: 1 };\nif (g === "paris") go("metro");\n'
    )
    assert js_named_games(source, BUILT_IN) == ["london", "paris", "metro"]


def test_only_apply_change_changes_a_rooms_copy() -> None:
    wrong = []
    for rel, path in python_sources("web"):
        if rel != "web/rooms/changes.py":
            wrong += [f"{rel}:{line}" for line in room_fact_writes(path.read_text("utf-8"))]
    assert not wrong, wrong
    assert room_fact_writes((PACKAGE / "web/rooms/changes.py").read_text("utf-8"))


def test_the_room_fact_finder_sees_every_kind_of_assignment() -> None:
    source = (
        "table.progress = p\ntable.status, table.deadline = s, d\ntable.seats += []\n"
        "other.status = 1\ntable.touched = 2\nx = table.deadline\n"
    )
    assert room_fact_writes(source) == [1, 2, 2, 3]


def test_function_level_imports_only_where_a_command_or_an_extra_needs_them() -> None:
    wrong = []
    for rel, path in python_sources("."):
        if not rel.startswith(tuple(LAZY_IMPORTERS)):
            wrong += [f"{rel}:{line}" for line in lazy_package_imports(path.read_text("utf-8"))]
    assert not wrong, wrong


def test_the_lazy_import_finder_sees_function_level_imports_only() -> None:
    source = (
        "import metrogames.core\nfrom metrogames import games\ndef f():\n"
        "    import os\n    from metrogames.web import app\n    from . import x\n"
        "async def g():\n    import metrogames.sim\n"
    )
    assert lazy_package_imports(source) == [5, 6, 8]


def dict_narrowings(source: str) -> list[int]:
    """The lines of ``source`` that test ``isinstance(x, dict)`` (it narrows to
    ``dict[Any, Any]``: every key and value read after it is unchecked)."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Name)
        and node.args[1].id == "dict"
    ]


def any_uses(source: str) -> list[int]:
    """The lines of ``source`` that name ``typing.Any``."""
    return sorted(
        {
            node.lineno
            for node in ast.walk(ast.parse(source))
            if (isinstance(node, ast.Name) and node.id == "Any")
            or (isinstance(node, ast.Attribute) and node.attr == "Any")
        }
    )


NARROWED_BY_IS_OBJECT = ("bots", "web/rooms", "web/daily", "web/infra")
"""Where decoded JSON is narrowed by ``core.protocol.is_object`` (to ``JsonObject``)."""


def test_decoded_json_is_narrowed_to_json_objects_not_to_any() -> None:
    wrong = []
    for rel, path in python_sources(*NARROWED_BY_IS_OBJECT):
        wrong += [f"{rel}:{line}" for line in dict_narrowings(path.read_text("utf-8"))]
    assert not wrong, wrong


ANY_CHECKED = (*ABOVE_GAMES, "core")
"""Where ``Any`` is looked for: the protocol (``core/``) and its users, every layer above
``games/`` (the room core, ``web/rooms``, and its views, ``web/rooms/views.py``, included)."""

ANY_KEPT = {
    "bots/value.py": "numpy's savez types its **arrays as its own allow_pickle flag too",
    "bots/value_train.py": "numpy's savez, as bots/value.py",
    "cli/app.py": "rich's Console keyword arguments, passed on (rich declares no type of them)",
    "cli/optional.py": "the Click context of Typer's private copy of Click has no public name",
    "cli/options.py": "Typer's private Click's Parameter; a function given a __signature__",
    "core/capabilities.py": "an engine returns its own Game and State classes (a State is "
    "invariant in its action type); GreedyGains takes the state's own actions",
    "web/infra/deadlines.py": "uvicorn's protocol arguments, passed on to it",
    "web/infra/writer.py": "the writer thread's queue holds every call's future, each of its "
    "own result type (asyncio's Future is invariant)",
}
"""The modules above the games (and the protocol's) that keep an ``Any``, and why: each is a
library's untyped or unnamed API, or a type the protocol cannot state; each use says so in a
comment beside it."""


def test_no_any_in_the_protocol_or_its_users_but_where_a_library_needs_it() -> None:
    found = {
        rel: lines
        for rel, path in python_sources(*ANY_CHECKED)
        if (lines := any_uses(path.read_text("utf-8")))
    }
    wrong = {rel: lines for rel, lines in found.items() if rel not in ANY_KEPT}
    assert not wrong, wrong
    idle = set(ANY_KEPT) - set(found)  # an exception no longer needed leaves the list
    assert not idle, idle
    assert "web/rooms/views.py" in {rel for rel, _ in python_sources(*ANY_CHECKED)}


def test_the_any_and_dict_finders_see_them() -> None:
    source = (
        "import typing\nfrom typing import Any\nx: Any = 1\ny: typing.Any\n"
        "if isinstance(x, dict):\n    pass\nisinstance(x, (dict, list))\n"
    )
    assert any_uses(source) == [3, 4]
    assert dict_narrowings(source) == [5]


INFRA_MAY_IMPORT = {"errors", "checks", "infra"}
"""What ``web/infra/`` (migrations included) may import of the web table: infrastructure knows
no room and no feature (``docs/architecture.md``, "Inside the web table"); the job functions
that run the features' computations are above both (``web/work.py``), given to it by the app."""


def web_imports(source: str, package: str) -> list[tuple[int, str]]:
    """``(line, part)`` for each import of ``metrogames.web.<part>`` in ``source``, a module of
    the package ``package`` (dotted: its relative imports resolved), function-level and
    ``TYPE_CHECKING`` ones included."""
    out = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            within = len(module.split(".")) > 2  # the part is the module's, else each name's
            names = [module] if within else [f"{module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["metrogames", "web"] and len(parts) > 2:
                out.append((node.lineno, parts[2]))
    return out


def test_the_web_tables_infrastructure_imports_no_feature_and_no_room() -> None:
    wrong = []
    for rel, path in python_sources("web/infra"):
        package = ".".join(["metrogames", *Path(rel).parent.parts])
        for line, part in web_imports(path.read_text("utf-8"), package):
            if part not in INFRA_MAY_IMPORT:
                wrong.append(f"{rel}:{line}: imports web.{part}")
    assert not wrong, wrong
    assert any(rel.startswith("web/infra/migrations/versions/") for rel, _ in python_sources("web/infra"))


def test_the_web_import_finder_sees_absolute_relative_and_lazy_imports() -> None:
    source = (
        "from metrogames.web.rooms.replays import replay_text\nimport metrogames.web.daily.deal\n"
        "from metrogames.web.infra import metrics\nfrom ... import errors\nfrom ...accounts import names\n"
        "def f():\n    from metrogames.web import work\nimport metrogames.web\n"
    )
    assert web_imports(source, "metrogames.web.infra.jobs") == [
        (1, "rooms"), (2, "daily"), (3, "infra"), (4, "errors"), (5, "accounts"), (7, "work")
    ]


JS_MAX_LINES = 600
"""A browser module's most lines, as for the web table's Python modules (issue 22, item 1):
past it a module is split by concern (daily.js: the home page's cards and the day's game;
daily-board.js: the leaderboards; daily-common.js: what both use)."""


def test_no_browser_module_is_over_the_line_limit() -> None:
    long = {
        path.name: n
        for path in sorted(JS.glob("*.js"))
        if (n := len(path.read_text("utf-8").splitlines())) > JS_MAX_LINES
    }
    assert not long, long
    assert len(list(JS.glob("*.js"))) > 20  # the client was found


def test_no_test_runs_an_event_loop_on_the_main_thread() -> None:
    """The browser tests' Playwright keeps an event loop running on a worker's main thread for
    the rest of its session, so a later test's ``asyncio.run`` there fails ("cannot be called
    from a running event loop") depending only on which files a worker drew: tests run their
    coroutines with ``support.web.run_async`` (a thread of its own) or on a thread they start."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path == Path(__file__):
            continue  # this test names the call it looks for
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = text.split("#", 1)[0]
            allowed = ("lambda: asyncio.run(", "pool.submit(asyncio.run", '"``asyncio.run(')
            if "asyncio.run(" in code and not any(a in code for a in allowed):
                found.append(f"{path.relative_to(ROOT)}:{number}")
    assert not found, found
