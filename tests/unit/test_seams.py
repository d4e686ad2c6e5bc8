"""The house shows its seams: no module of XNews (in every package, the GUI's and the command line's
included, and at the top level) is over ~400 lines, and no module uses a private name (``_x``) that
another module defines: stages meet through what they make public. (No import circle: the import-linter
contracts, test_layers.py.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "xnews_gui"
MAX_LINES = 400
LIBRARY_NAMES = {"_meta"}  # peewee's documented Model._meta (a module of ours has a _meta of its own)


def private_definitions(tree: ast.AST) -> set[str]:
    """Private names a module defines: functions, classes, module globals, attributes set on self/cls."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
    return {n for n in out if n.startswith("_") and not n.startswith("__")}


def foreign_private_uses(paths: list[Path], scope: list[Path]) -> list[str]:
    """Uses in ``scope`` of a private name defined by another module of ``paths`` and not by itself."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in paths}
    defined = {p: private_definitions(t) for p, t in trees.items()}
    found = []
    for path in scope:
        others = set().union(*(d for p, d in defined.items() if p != path))
        foreign = others - defined[path] - LIBRARY_NAMES
        for node in ast.walk(trees[path]):
            if isinstance(node, ast.Attribute) and node.attr in foreign:
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                    continue
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:60]}")
            elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("xnews_gui")):
                found += [f"{path.name}:{node.lineno}: imports {a.name}" for a in node.names if a.name in foreign]
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_400_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{lines} lines: move a piece with one job of its own into a module of its own"


def test_no_module_uses_another_ones_private_names():
    everything = sorted(PACKAGE.rglob("*.py"))
    assert foreign_private_uses(everything, everything) == []


def test_the_private_name_check_sees_a_stage_reaching_inside_another(tmp_path):
    (tmp_path / "engine.py").write_text("class Crawler:\n    def __init__(self):\n        self._cond = 1\n"
                                        "def _helper():\n    pass\n")
    (tmp_path / "queueing.py").write_text("from .engine import _helper\nfrom re import _helper as h\nclass Queuer:\n"
                                          "    def __init__(self, c):\n        self._own = c._cond\n"
                                          "    def f(self):\n        return self._own, self._cond, x._meta\n")
    paths = sorted(tmp_path.glob("*.py"))
    found = foreign_private_uses(paths, [tmp_path / "queueing.py"])
    assert found == ["queueing.py:1: imports _helper", "queueing.py:5: c._cond"]  # a library's own: not ours
