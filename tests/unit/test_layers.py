"""The architecture's one rule, checked mechanically: a Qt-free core under a thin Qt layer.

Allowed: ui -> crawl, classify, store, core; crawl -> core; classify -> core; store -> core.
Nothing imports ui except the entry point (cli). Only ui may import PySide6.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "xnews_gui"
ALLOWED = {
    "core": {"core"},
    "crawl": {"crawl", "core"},
    "classify": {"classify", "core"},
    "store": {"store", "core"},
    "demo": {"demo"},
}
QT_FREE = set(ALLOWED) | {"paths", "bundled", "export"}


def imports_of(path: Path, root: Path = PACKAGE.parent) -> set[str]:
    """Fully qualified modules imported by a file (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = list(path.relative_to(root).with_suffix("").parts)
    package = parts[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                found.add(module)
                if not node.module:
                    found.update(f"{module}.{alias.name}" for alias in node.names)
            else:
                found.add(node.module or "")
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "xnews_gui" and len(parts) > 1 else None


FILES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_layering(path):
    rel = path.relative_to(PACKAGE)
    own = rel.parts[0] if len(rel.parts) > 1 else rel.stem
    imported = imports_of(path)
    if own in QT_FREE:
        assert not any(m.split(".")[0] == "PySide6" for m in imported), f"{rel} imports PySide6"
    if own in ALLOWED:
        layers = {layer_of(m) for m in imported if m.startswith("xnews_gui")} - {None}
        # the data-folder helpers and the package's version are allowed everywhere
        bad = layers - ALLOWED[own] - {"paths", "__version__"}
        assert not bad, f"{rel} imports {sorted(bad)}, outside what {own!r} may use"
    if own != "ui" and own != "cli":
        assert not any(layer_of(m) == "ui" for m in imported), f"{rel} imports the ui"


def test_the_check_sees_a_forbidden_import(tmp_path):
    probe = tmp_path / "xnews_gui" / "core" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from ..store import repo\nfrom . import rules\nimport PySide6.QtCore\n")
    found = imports_of(probe, root=tmp_path)
    assert {"xnews_gui.store", "xnews_gui.core", "PySide6.QtCore"} <= found
    assert layer_of("xnews_gui.store") not in ALLOWED["core"]
