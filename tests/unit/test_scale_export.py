"""The Scrapy project export and its wheel: what a worker gets, and nothing of Qt or the store."""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path

from xnews_gui.scale.wheel import build_wheel

from ..conftest import PROFILES


def imports_of(path: Path, root: Path) -> set[str]:
    """Fully qualified modules a shipped file imports (relative imports resolved), at any level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = list(path.relative_to(root).with_suffix("").parts)[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                module = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                found.add(module)
                if not node.module:
                    found.update(f"{module}.{alias.name}" for alias in node.names)
            else:
                found.add(node.module or "")
    return found


def test_the_wheel_holds_the_qt_free_code_only(tmp_path):
    wheel = build_wheel(tmp_path / "a")
    again = build_wheel(tmp_path / "b")
    assert wheel.read_bytes() == again.read_bytes()  # the same sources give the same wheel
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(next(n for n in names if n.endswith("/METADATA"))).decode()
        record = zf.read(next(n for n in names if n.endswith("/RECORD"))).decode()
        modules = {n: zf.read(n) for n in names if n.endswith(".py")}
    assert "xnews_gui/core/extraction/extract.py" in modules and "xnews_gui/classify/model.py" in modules
    assert "xnews_gui/scale/spider.py" in modules and "xnews_gui/scale/frontier.py" in modules
    assert not [n for n in modules if n.startswith(("xnews_gui/ui/", "xnews_gui/store/", "xnews_gui/cli"))]
    assert "xnews_gui/scale/importer.py" not in modules and "xnews_gui/scale/project.py" not in modules
    requires = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist")]
    assert not [r for r in requires if "pyside" in r.lower()]
    assert {"lxml>=5.0,<7", "scikit-learn>=1.3,<2", "nh3>=0.2.14,<0.4"} <= set(requires)
    assert any(r.startswith("scrapy") for r in requires) and any(r.startswith("redis") for r in requires)
    assert all(name in record for name in modules)
    # every module shipped imports only what is shipped (or third-party code), never Qt
    for name, source in modules.items():
        path = tmp_path / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(source)
        ast.parse(source)
        for imported in imports_of(path, root=tmp_path / "src"):
            assert not imported.startswith("PySide6"), f"{name} imports {imported}"
            if imported.startswith("xnews_gui."):
                target = imported.replace(".", "/")
                assert f"{target}.py" in modules or f"{target}/__init__.py" in modules or \
                    imported.rsplit(".", 1)[0].replace(".", "/") + ".py" in modules, f"{name} imports {imported}"



def test_scrapy_project_export_writes_a_standalone_project(cli, tmp_path):
    out = tmp_path / "proj"
    code, text, err = cli("scrapy-project", "--profile", "demo", "--profile", str(PROFILES / "demo.json"), "-o", str(out))
    assert code == 0, err
    assert "[deploy]" in (out / "scrapy.cfg").read_text() and "xnews_scrapy.settings" in (out / "scrapy.cfg").read_text()
    assert (out / "xnews_scrapy" / "profiles" / "demo.json").is_file()
    assert (out / "xnews_scrapy" / "model" / "topic.npz").stat().st_size > 10_000
    spider = (out / "xnews_scrapy" / "spiders" / "xnews.py").read_text()
    assert 'name = "xnews"' in spider and "XNewsSpider" in spider  # one generic spider, no site code
    requirements = (out / "requirements.txt").read_text()
    assert "xnews-worker==" in requirements and "--find-links ./wheels" in requirements
    assert list((out / "wheels").glob("xnews_worker-*.whl"))
    assert "max_pages" not in err  # the demo has none
    # a second export into the same folder replaces the first; a page limit says it holds for each worker
    limited = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    limited["name"], limited["crawl"] = "demo10", dict(limited.get("crawl") or {}, max_pages=10)
    (tmp_path / "demo10.json").write_text(json.dumps(limited), encoding="utf-8")
    code, _, err = cli("scrapy-project", "--profile", str(tmp_path / "demo10.json"), "--no-model", "-o", str(out))
    assert code == 0 and not (out / "xnews_scrapy" / "model").exists(), err
    assert "demo10's max_pages 10 holds for each worker: in a cluster of N workers they fetch up to N x 10" in err


def test_scrapy_project_refuses_a_folder_that_is_not_its_own(cli, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    code, _, err = cli("scrapy-project", "--profile", "demo", "-o", str(tmp_path / "mine"))
    assert code == 2 and "not empty" in err and (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    code, _, err = cli("scrapy-project", "--profile", "demo", "-o", str(tmp_path / "no" / "such" / "dir"))
    assert code == 2 and "does not exist" in err
    code, _, err = cli("scrapy-project", "--profile", "nope", "-o", str(tmp_path / "x"))
    assert code == 2 and "no profile named 'nope'" in err
