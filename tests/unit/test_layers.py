"""The architecture's rules, checked mechanically: a Qt-free core under a thin Qt layer.

Allowed: ui -> services, crawl, classify, store, core; services -> crawl, classify, store, core, export;
crawl -> core; classify -> core; store -> core. Only ui may import PySide6. The GUI never imports
the command line; the command line imports the GUI only to open the app when no command is
given (``ui.app``, inside a function); the command-line modules import each other without a cycle.
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
    "services": {"services", "store", "crawl", "classify", "core", "export"},  # export: a watch's Atom feed
    "demo": {"demo"},
    # the worker modules (and crawl's sitemap and feed readers only): see test_scale_export
    "scale": {"scale", "core", "classify", "store", "crawl"},
}
QT_FREE = set(ALLOWED) | {"paths", "bundled", "export", "cli"}


def imports_of(path: Path, root: Path = PACKAGE.parent, *, module_level_only: bool = False) -> set[str]:
    """Fully qualified modules imported by a file (relative imports resolved); with
    ``module_level_only``, leaving out the imports inside functions (done when called)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = list(path.relative_to(root).with_suffix("").parts)
    package = parts[:-1]
    lazy = set()
    if module_level_only:
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lazy.update(id(n) for n in ast.walk(fn))
    found = set()
    for node in ast.walk(tree):
        if id(node) in lazy:
            continue
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
    if own == "ui":
        assert not any(layer_of(m) == "cli" for m in imported), f"{rel}: the GUI imports the command line"
    elif own == "cli":
        gui = {m for m in imported if layer_of(m) == "ui"}
        assert gui <= {"xnews_gui.ui.app", "xnews_gui.ui.render_run"}, f"{rel} imports the ui: {sorted(gui)}"
        eager = {m for m in imports_of(path, module_level_only=True) if layer_of(m) == "ui"}
        assert not eager, f"{rel} imports the app at module level (only inside the no-command path)"
    else:
        assert not any(layer_of(m) == "ui" for m in imported), f"{rel} imports the ui"


def module_graph(folder: Path, root: Path = PACKAGE.parent) -> dict[str, set[str]]:
    """Module -> the modules of the same folder it imports (at any level)."""
    package = ".".join(folder.relative_to(root).parts)
    names = {f"{package}.{p.stem}" for p in folder.glob("*.py")}
    graph = {}
    for path in folder.glob("*.py"):
        imported = imports_of(path, root)
        graph[f"{package}.{path.stem}"] = {m for m in imported if m in names} - {f"{package}.{path.stem}"}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path + [node, nxt]
            if nxt not in state:
                found = visit(nxt, path + [node])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def test_command_line_modules_import_each_other_without_a_cycle():
    graph = module_graph(PACKAGE / "cli")
    assert len(graph) >= 5 and all(len(p.read_text(encoding="utf-8").splitlines()) < 400
                                   for p in (PACKAGE / "cli").glob("*.py"))
    cycle = find_cycle({k: v - {"xnews_gui.cli.__init__"} for k, v in graph.items()})
    assert cycle is None, f"import cycle: {' -> '.join(cycle)}"


def test_the_cycle_check_finds_a_cycle(tmp_path):
    folder = tmp_path / "xnews_gui" / "cli"
    folder.mkdir(parents=True)
    (folder / "a.py").write_text("from . import b\n")
    (folder / "b.py").write_text("def f():\n    from .a import x\n")
    (folder / "c.py").write_text("from .b import f\n")
    assert find_cycle(module_graph(folder, tmp_path)) in (["xnews_gui.cli.a", "xnews_gui.cli.b", "xnews_gui.cli.a"],
                                                          ["xnews_gui.cli.b", "xnews_gui.cli.a", "xnews_gui.cli.b"])
    (folder / "a.py").write_text("x = 1\n")
    assert find_cycle(module_graph(folder, tmp_path)) is None


def test_the_lazy_import_check_tells_module_level_from_function_level(tmp_path):
    probe = tmp_path / "xnews_gui" / "cli" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from ..ui import articles_view\ndef run():\n    from ..ui.app import run\n")
    assert imports_of(probe, tmp_path) >= {"xnews_gui.ui", "xnews_gui.ui.app"}
    eager = imports_of(probe, tmp_path, module_level_only=True)
    assert "xnews_gui.ui.app" not in eager and "xnews_gui.ui" in eager


def test_the_check_sees_a_forbidden_import(tmp_path):
    probe = tmp_path / "xnews_gui" / "core" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from ..store import repo\nfrom . import rules\nimport PySide6.QtCore\n")
    found = imports_of(probe, root=tmp_path)
    assert {"xnews_gui.store", "xnews_gui.core", "PySide6.QtCore"} <= found
    assert layer_of("xnews_gui.store") not in ALLOWED["core"]
