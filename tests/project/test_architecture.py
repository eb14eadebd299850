"""The package's imports keep the layers ``docs/architecture.md`` describes: each part imports
only the parts its table row allows, and above ``games/`` a game is reached only through the
registry (``metrogames.games``), never an engine's own modules (``cli/render/`` excepted)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "metrogames"
ABOVE_GAMES = ("bots", "sim", "envs", "web", "cli")
ENGINE_KNOWERS = ("cli/render/",)
"""The one place above ``games/`` that may know an engine's modules (drawing a board)."""


def allowed() -> dict[str, set[str]]:
    """The table of ``docs/architecture.md``, "The layers": part -> the parts it may import."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for row in re.finditer(r"^\| `([\w.]+?)(?:/|\.py)?` \| ([^|]+) \|", section, flags=re.M):
        table[row.group(1)] = set(re.findall(r"`(\w+)`", row.group(2)))
    return table


def imports(path: Path, root: Path = PACKAGE.parent) -> list[tuple[int, str]]:
    """``(line, module)`` for every ``metrogames`` import of ``path`` (relative ones resolved
    from ``root``, the folder that holds the package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(root).with_suffix("").parts
    if path.name != "__init__.py":
        package = package[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            out.append((node.lineno, name))
    return [(line, name) for line, name in out if name.split(".")[0] == "metrogames"]


def part_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_the_table_names_every_part_of_the_package() -> None:
    parts = {part_of(p) for p in PACKAGE.rglob("*.py")} - {"__init__"}
    table = allowed()
    assert set(table) == parts
    assert table["core"] == {"i18n"} and table["i18n"] == set()  # the table was read


def test_every_import_is_allowed_by_the_layers() -> None:
    table = allowed()
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        part = part_of(path)
        if part == "__init__":
            continue
        for line, name in imports(path):
            target = name.split(".")[1] if "." in name else ""
            if target and target != part and target not in table[part]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {part} imports {name}")
    assert not wrong, wrong


def test_above_the_games_a_game_is_reached_through_the_registry() -> None:
    wrong = []
    for part in ABOVE_GAMES:
        for path in sorted((PACKAGE / part).rglob("*.py")):
            rel = path.relative_to(PACKAGE).as_posix()
            if rel.startswith(ENGINE_KNOWERS):
                continue
            for line, name in imports(path):
                if name.startswith("metrogames.games."):
                    wrong.append(f"{rel}:{line}: imports {name}")
    assert not wrong, wrong


def test_the_import_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    module = tmp_path / "metrogames" / "core" / "thing.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "import os\nimport metrogames.web.app\nfrom metrogames.sim import runner\n"
        "from . import rng\nfrom ..bots.base import Bot\n"
        "def f():\n    from metrogames.cli import main\n"
    )
    assert imports(module, tmp_path) == [
        (2, "metrogames.web.app"),
        (3, "metrogames.sim"),
        (4, "metrogames.core"),
        (5, "metrogames.bots.base"),
        (7, "metrogames.cli"),
    ]


def runtime_imports(path: Path, root: Path = PACKAGE.parent) -> set[str]:
    """The ``metrogames`` modules importing ``path`` runs, function-level imports included
    and ``if TYPE_CHECKING:`` blocks left out (annotations only); ``from m import x`` counts
    as ``m.x`` where that is a module, and every module brings its parent packages (but the
    packages holding ``path``, already being imported when it is)."""
    modules = {_module_name(p, root) for p in root.joinpath("metrogames").rglob("*.py")}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    names: set[str] = set()
    for line, name in imports_of(tree, path, root):
        names.add(name)
        names |= {f"{name}.{alias}" for alias in line} & modules
    out = set()
    for name in names:
        parts = name.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & modules
    own = _module_name(path, root).split(".")
    return out - {".".join(own[:i]) for i in range(1, len(own) + 1)}


def imports_of(tree: ast.AST, path: Path, root: Path) -> list[tuple[list[str], str]]:
    """``(imported names, module)`` of each import statement of ``tree`` (of ``path``)."""
    package = _module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [([], a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            name = ".".join(filter(None, [base, node.module]))
            out.append(([a.name for a in node.names], name))
    return [(names, name) for names, name in out if name.split(".")[0] == "metrogames"]


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_cycles(root: Path = PACKAGE.parent) -> list[list[str]]:
    """The package's import cycles: each strongly connected group of modules (Tarjan) of
    :func:`runtime_imports`' graph, sorted."""
    paths = {_module_name(p, root): p for p in root.joinpath("metrogames").rglob("*.py")}
    graph = {name: runtime_imports(path, root) for name, path in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for other in graph[name]:
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            group = stack[stack.index(name) :]
            del stack[stack.index(name) :]
            if len(group) > 1:
                cycles.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(cycles)


def test_no_import_cycle_hides_behind_a_function_level_import() -> None:
    assert import_cycles() == []


def test_the_cycle_finder_sees_lazy_imports_not_type_checking_ones(tmp_path: Path) -> None:
    package = tmp_path / "metrogames"
    (package / "a").mkdir(parents=True)
    for path, text in {
        "__init__.py": "",
        "a/__init__.py": "",
        "a/one.py": "from metrogames.a import two\n",
        "a/two.py": "def f():\n    from . import three\n",
        "a/three.py": "from metrogames.a.one import x\n",
        "a/four.py": "from metrogames.a import one\nimport metrogames.b\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import metrogames.a.four\n",
    }.items():
        (package / path).write_text(text)
    assert import_cycles(tmp_path) == [
        ["metrogames.a.one", "metrogames.a.three", "metrogames.a.two"]
    ]


WEB = PACKAGE / "web"
WEB_EXCEPTIONS = {
    "infra/jobs/work.py": {
        "metrogames.web.rooms.replays",
        "metrogames.web.rooms.analyses",
        "metrogames.web.rooms.mapreports",
        "metrogames.web.daily.deal",
        "metrogames.web.daily.open_deals",
    }
}
"""The one module the web table's layers let import upwards: the code the job processes run
imports the pure computations it runs (``docs/architecture.md``, "Inside the web table")."""


def web_allowed() -> dict[str, set[str]]:
    """The table of ``docs/architecture.md``, "Inside the web table": web part -> the web
    parts it may import."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Inside the web table", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for row in re.finditer(r"^\| `([\w.]+?)(?:/|\.py)?` \| ([^|]+) \|", section, flags=re.M):
        table[row.group(1)] = set(re.findall(r"`(\w+)`", row.group(2)))
    return table


def web_part_of(path: Path) -> str:
    rel = path.relative_to(WEB)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def web_sources() -> list[Path]:
    return [p for p in sorted(WEB.rglob("*.py")) if "migrations" not in p.parts]


def test_the_web_table_names_every_part_of_the_web_table() -> None:
    parts = {web_part_of(p) for p in web_sources()} - {"__init__"}
    table = web_allowed()
    assert set(table) == parts
    assert table["errors"] == set() and table["rooms"] == {"errors", "checks", "infra"}


def test_every_import_inside_the_web_table_is_allowed() -> None:
    table = web_allowed()
    wrong = []
    for path in web_sources():
        part = web_part_of(path)
        if part == "__init__":
            continue
        rel = path.relative_to(WEB).as_posix()
        for line, name in imports(path):
            if not name.startswith("metrogames.web.") or name in WEB_EXCEPTIONS.get(rel, set()):
                continue
            target = name.split(".")[2]
            if target != part and target not in table[part]:
                wrong.append(f"web/{rel}:{line}: {part} imports {name}")
    assert not wrong, wrong
