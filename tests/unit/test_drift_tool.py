"""The drift check's reading of constraints.txt and pyproject.toml (tools/drift.py)."""

from __future__ import annotations

import importlib.util

from tests.conftest import REPO

spec = importlib.util.spec_from_file_location("drift", REPO / "tools" / "drift.py")
drift = importlib.util.module_from_spec(spec)
spec.loader.exec_module(drift)


def test_every_declared_dependency_is_pinned_in_the_constraints():
    import tomllib

    pins = drift.pinned_versions(REPO / "constraints.txt")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = list(project["dependencies"]) + [r for extra in project["optional-dependencies"].values() for r in extra]
    names = {drift.canonical(r.split(";")[0].split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip())
             for r in declared}
    assert names - set(pins) == set(), "declared but not in constraints.txt: re-run pip-compile (README)"
    assert pins["lxml"] and pins["pyside6"]


def test_bounds_are_read_and_a_release_beyond_one_is_told_apart():
    bounds = drift.bounded_requirements(REPO / "pyproject.toml")
    assert bounds["lxml"] == "<7" and bounds["nh3"] == "<0.4" and bounds["python-dateutil"] == "<5"
    assert drift.beyond("7.0.1", "<7") and not drift.beyond("6.9.9", "<7")
    assert drift.beyond("0.4.0", "<0.4") and not drift.beyond("0.3.12", "<0.4")
    assert drift.canonical("lxml_html_clean") == drift.canonical("lxml-html-clean") == "lxml-html-clean"


def test_the_versions_that_shape_outputs_are_named():
    from xnews_gui.core.versions import library_versions, versions_line

    versions = library_versions()
    assert {"python", "lxml", "libxml2", "nh3", "numpy"} <= set(versions)
    assert versions_line().startswith("versions: python ") and f"lxml {versions['lxml']}" in versions_line()


def test_tests_reach_the_shared_data_only_through_the_conftest():
    """A fresh clone has nothing beside it: a test that builds the ../shared path itself would not
    skip there (and CI's pass without the data would not see it, since it moves only conftest's path)."""
    import re
    from pathlib import Path

    own_path = re.compile(r"""/\s*["']shared["']""")
    offenders = [str(p.relative_to(REPO)) for p in sorted((REPO / "tests").rglob("*.py"))
                 if p.name != "conftest.py" and p != Path(__file__) and own_path.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
    assert own_path.search("SHARED = REPO.parent / 'shared'".replace("'", '"'))
