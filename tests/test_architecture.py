"""The package's imports keep the layers ``docs/architecture.md`` describes: each part imports
only the parts its table row allows, and above ``games/`` a game is reached only through the
registry (``metrogames.games``), never an engine's own modules (``cli/render/`` excepted)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


WEB = PACKAGE / "web"
WEB_EXCEPTIONS = {
    "infra/jobs/work.py": {
        "metrogames.web.rooms.replays",
        "metrogames.web.rooms.analyses",
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


def import_graph(paths: list[Path], root: Path = PACKAGE.parent) -> dict[str, set[str]]:
    """Module -> the modules of ``paths`` it imports (every import, those inside functions
    too: a cycle through one is a cycle all the same)."""
    modules = {}
    for path in paths:
        parts = path.relative_to(root).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found |= {f"{node.module}.{a.name}" for a in node.names} | {node.module}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``, each as the modules along it (first = last)."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(node: str, trail: list[str]) -> None:
        if node in trail:
            found.append([*trail[trail.index(node) :], node])
            return
        if node in done:
            return
        for nxt in sorted(graph[node]):
            visit(nxt, [*trail, node])
        done.add(node)

    for name in sorted(graph):
        visit(name, [])
    return found


def test_no_import_cycle_in_the_web_table() -> None:
    graph = import_graph(web_sources())
    assert "metrogames.web.rooms.store" in graph["metrogames.web.rooms.service"]  # it was read
    assert not cycles(graph), cycles(graph)


def test_the_cycle_finder_sees_a_cycle_through_an_import_in_a_function(tmp_path: Path) -> None:
    package = tmp_path / "metrogames" / "web"
    package.mkdir(parents=True)
    (package / "a.py").write_text("from metrogames.web.b import x\n")
    (package / "b.py").write_text("def f():\n    from metrogames.web import c\n")
    (package / "c.py").write_text("import metrogames.web.a\n")
    (package / "d.py").write_text("from metrogames.web import a\n")
    graph = import_graph(sorted(package.glob("*.py")), tmp_path)
    assert cycles(graph) == [
        ["metrogames.web.a", "metrogames.web.b", "metrogames.web.c", "metrogames.web.a"]
    ]
