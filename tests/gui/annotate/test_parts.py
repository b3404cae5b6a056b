"""The Annotate page's parts receive what they use, never the page (docs/design.md, "The GUI's
structure"): no module of ``gui/annotate/`` imports ``page.py`` (not even for type checking),
and no part takes a ``page`` parameter."""

from __future__ import annotations

import ast
from pathlib import Path

import slicereview.gui.annotate as annotate_package

PACKAGE = Path(annotate_package.__file__).parent
PAGE = "slicereview.gui.annotate.page"


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in ``tree`` (relative ones resolved in the package),
    with ``from X import Y`` also giving ``X.Y`` (a module imported by name)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = ["slicereview", "gui", "annotate"][: 4 - node.level]
                base = ".".join([*parent, base] if base else parent)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _offences(source: str) -> list[str]:
    tree = ast.parse(source)
    offences = [f"line {line}: imports {name}" for line, name in _imports(tree)
                if name == PAGE or name.startswith(PAGE + ".")]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            offences += [f"line {node.lineno}: {node.name}() takes a page" for a in args
                         if a.arg == "page"]
    return offences


def test_no_part_imports_the_page() -> None:
    modules = sorted(p for p in PACKAGE.glob("*.py") if p.name != "page.py")
    assert len(modules) >= 10  # (the parts are where this test looks)
    offences = {p.name: o for p in modules if (o := _offences(p.read_text(encoding="utf-8")))}
    assert offences == {}


def test_the_check_catches_each_way_of_importing_the_page() -> None:
    for source in ("from slicereview.gui.annotate.page import AnnotatePage\n",
                   "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    from slicereview.gui.annotate.page import AnnotatePage\n",
                   "from .page import AnnotatePage\n",
                   "from . import page\n",
                   "from slicereview.gui.annotate import page\n",
                   "import slicereview.gui.annotate.page\n",
                   "class Part:\n    def __init__(self, page: object) -> None: ...\n"):
        assert _offences(source), source
    assert _offences("from slicereview.gui.annotate.panel import AnnotatePanel\n"
                     "from .state import AnnotateState\n") == []
