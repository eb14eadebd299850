"""The docs build's griffe extension (``mkdocs.yml``): the docstrings' Sphinx-style roles become
cross-references that the build checks.

The package's docstrings point at each other as Sphinx does — :class:`Game`,
:func:`~metrogames.bots.base.make_bot`, :mod:`.views`, :data:`CHANCE` — which Markdown would
show as the raw text. Before the docstrings are parsed, every role in the ``metrogames`` package
is resolved the way Sphinx reads it, from the docstring's own object:

- a dotted path that starts with the package's name (``metrogames.``) is taken as it is;
- a leading dot (``.views``, ``~.actions.DRAW``) is relative to the object's package, then to
  the packages above it;
- any other name is looked up in the object's scope, then its parents' (members and imports,
  as Python would: griffe's ``resolve``); the rest of a dotted name (``State.apply``) must be a
  member of what the first part names.

A ``~`` shows only the last part of the path; a trailing ``()`` is dropped. A role that names an
object of the package becomes an optional cross-reference: a link where the site renders that
object (the API reference's pages), plain code elsewhere (a private helper, a ``web`` module). A
role that names an object outside the package — a built-in (``sorted``), an import
(``asyncio.Lock``), the full path of an installed package's object (``uvicorn.middleware…``)
— is shown as code.
A role that names nothing is a broken reference: a warning naming the file, the line and the
role, which ``mkdocs build --strict`` turns into a failed build.

reST's literal-block marker goes the reST way too: ``Example::`` before an indented block reads
``Example:`` (the block is code in Markdown as it is).
"""

from __future__ import annotations

import builtins
import html
import importlib.util
import re
from typing import Any

from griffe import Alias, AliasResolutionError, CyclicAliasError, Extension, Object, logger
from griffe import NameResolutionError as _Unresolved

ROLE = re.compile(
    r":(?:py:)?(?P<kind>mod|func|class|meth|attr|data|exc|obj|const):`(?P<target>[^`]+)`"
)
"""A Sphinx cross-reference role in a docstring."""
LITERAL = re.compile(r"(\S)?( ?)::\n(?=[ \t]*\n[ \t]+\S)")
"""reST's literal-block marker: a paragraph ending in ``::`` before an indented block (which
Markdown shows as code as it is)."""


class SphinxRoles(Extension):
    """Rewrite every Sphinx role of ``package``'s docstrings as a checked cross-reference
    (``package``: the option of the extension in ``mkdocs.yml``, ``metrogames`` by default)."""

    def __init__(self, package: str = "metrogames") -> None:
        super().__init__()
        self.package = package

    def on_package(self, *, pkg: Object, **kwargs: Any) -> None:
        if pkg.path != self.package:
            return
        for obj in _objects(pkg):
            docstring = obj.docstring
            if docstring is None or ":" not in docstring.value:
                continue
            value = ROLE.sub(lambda m, o=obj: _reference(o, m), docstring.value)
            docstring.value = LITERAL.sub(_colon, value)
            docstring.__dict__.pop("parsed", None)  # parsed again from the new text


def _colon(match: re.Match[str]) -> str:
    """``text::`` reads ``text:``, and a lone or spaced ``::`` goes (as in reST)."""
    before = match.group(1) or ""
    return f"{before}:\n" if before and not match.group(2) else f"{before}\n"


def _objects(obj: Object) -> list[Object]:
    """``obj`` and every object defined under it (imports left out: their targets count)."""
    out = [obj]
    for member in obj.members.values():
        if not isinstance(member, Alias):
            out += _objects(member)
    return out


def _reference(obj: Object, match: re.Match[str]) -> str:
    """The Markdown (inline HTML) for one role of ``obj``'s docstring."""
    target = match["target"].strip()
    short = target.startswith("~")
    name = target.lstrip("~").removesuffix("()")
    path = _resolve(obj, name)
    if path is None:
        docstring = obj.docstring
        line = docstring.lineno if docstring is not None and docstring.lineno else 0
        line += docstring.value[: match.start()].count("\n") if docstring is not None else 0
        logger.warning(
            "%s:%d: %s names nothing in the package (in the docstring of %s)",
            obj.relative_filepath, line, match[0], obj.path,
        )  # fmt: skip
        return f"`{name}`"
    title = name.rsplit(".", 1)[-1] if short else name.lstrip(".")
    if match["kind"] in {"func", "meth"}:
        title += "()"
    code = f"<code>{html.escape(title)}</code>"
    if not path.startswith(obj.package.path + "."):
        return code
    return f'<autoref identifier="{html.escape(path)}" optional>{code}</autoref>'


def _resolve(obj: Object, name: str) -> str | None:
    """The full path ``name`` names from ``obj``'s docstring, ``None`` when it names nothing."""
    root = obj.package
    if name.startswith("."):
        rest = name.lstrip(".")
        package: Object | None = obj.module if obj.module.is_init_module else obj.module.parent
        for _ in range(len(name) - len(rest) - 1):  # ``..x``: the package above
            package = package.parent if package is not None else None
        while package is not None:
            path = f"{package.path}.{rest}"
            if _exists(root, path):
                return path
            package = package.parent
        return None
    if name == root.path or name.startswith(root.path + "."):
        return name if _exists(root, name) else None
    head, _, rest = name.partition(".")
    try:
        found = obj.resolve(head)
    except _Unresolved:
        owner = obj if obj.is_class else obj.parent
        if not rest and owner is not None and _assigned_attribute(owner, head):
            return f"{owner.path}.{head}"  # an attribute its class sets outside ``__init__``
        if not rest and hasattr(builtins, head):
            return name  # ``sorted``, ``ValueError``
        # a full path into another installed package (``uvicorn.middleware…``), or nothing
        return name if rest and importlib.util.find_spec(head) is not None else None
    path = f"{found}.{rest}" if rest else found
    if path.startswith(root.path + ".") and not _exists(root, path):
        return None
    return path


def _exists(root: Object, path: str) -> bool:
    """Whether ``path`` names an object of the package ``root``: a module, class, function or
    attribute griffe found, or an attribute a class sets on ``self`` outside ``__init__``."""
    parts = path.split(".")
    if parts[0] != root.name:
        return False
    node: Object | Alias = root
    for i, part in enumerate(parts[1:], start=1):
        try:
            members = node.members
        except (AliasResolutionError, CyclicAliasError):  # an import from outside the package
            return False
        if part not in members:
            return i == len(parts) - 1 and _assigned_attribute(node, part)
        node = members[part]
    return True


def _assigned_attribute(node: Object | Alias, name: str) -> bool:
    """Whether class ``node`` sets ``self.<name>`` in one of its methods (griffe sees only the
    attributes ``__init__`` sets)."""
    if not node.is_class:
        return False
    assigned = re.compile(rf"\bself\.{re.escape(name)}\s*(?::[^=\n]+)?=(?!=)")
    return any(assigned.search(line) for line in node.lines)
