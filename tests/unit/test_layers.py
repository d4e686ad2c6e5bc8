"""The architecture's rules, checked mechanically: a Qt-free core under a thin Qt layer.

The import rules are import-linter contracts in pyproject.toml (``[tool.importlinter]``): the layers
of the package (cli over ui over services and scale over store, crawl, classify ... over core) and of
core (induction over extraction over the profile and its rules over the text utilities), only the GUI
imports Qt, the command line reaches the GUI through ui.app and ui.render_run only, the worker's
modules do not import the store, and no import circle at any level. CI runs ``lint-imports``; so does
this test, so that the README's test command checks them too. What import-linter cannot see is
checked here besides: a command starts without Qt (the two entry points import the GUI inside the
function that opens it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = ("import sys; from importlinter.cli import lint_imports_command; "
                "sys.exit(lint_imports_command(['--no-cache']))")


def lint_imports(where: Path) -> subprocess.CompletedProcess:
    """import-linter on the package and the contracts in ``where`` (its pyproject.toml)."""
    env = dict(os.environ, PYTHONPATH=str(where), COLUMNS="300", NO_COLOR="1")
    return subprocess.run([sys.executable, "-c", LINT_IMPORTS], cwd=where, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_import_contracts_hold():
    run = lint_imports(REPO)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " 0 broken." in run.stdout and "Analyzed " in run.stdout


def test_the_contracts_break_on_a_circle_qt_in_core_and_the_gui_importing_the_command_line(tmp_path):
    shutil.copytree(REPO / "xnews_gui", tmp_path / "xnews_gui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    assert lint_imports(tmp_path).returncode == 0  # the copy as it is keeps them
    core_text = tmp_path / "xnews_gui" / "core" / "text"
    with (core_text / "urls.py").open("a") as f:  # a circle inside one package (no layer crossed)
        f.write("\nfrom . import neardup  # noqa\n")
    with (core_text / "neardup.py").open("a") as f:
        f.write("\nfrom . import urls  # noqa\n")
    with (core_text / "dates.py").open("a") as f:
        f.write("\nimport PySide6.QtCore  # noqa\n")
    with (tmp_path / "xnews_gui" / "ui" / "icons.py").open("a") as f:
        f.write("\nfrom ..cli import common  # noqa\n")
    run = lint_imports(tmp_path)
    assert run.returncode == 1
    assert "3 kept, 3 broken." in run.stdout
    assert "No cycles are allowed in xnews_gui.core.text." in run.stdout
    assert "xnews_gui.core is not allowed to import PySide6:" in run.stdout
    assert "xnews_gui.ui is not allowed to import xnews_gui.cli:" in run.stdout


def test_a_command_starts_without_qt():
    code = ("import pkgutil, sys, importlib, xnews_gui.cli\n"
            "for m in pkgutil.iter_modules(xnews_gui.cli.__path__, 'xnews_gui.cli.'):\n"
            "    importlib.import_module(m.name)\n"
            "print(len(sys.modules), 'PySide6' in sys.modules)\n"
            "import xnews_gui.ui.main_window\n"  # the window does import it: the check sees Qt when it is there
            "print('PySide6' in sys.modules)\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    commands, with_app = run.stdout.splitlines()
    assert commands.endswith(" False") and with_app == "True"
