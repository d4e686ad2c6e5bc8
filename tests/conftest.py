"""Shared fixtures: offscreen Qt, a temporary data folder with a real SQLite file, the demo site."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu --disable-background-networking")

import pytest

REPO = Path(__file__).resolve().parents[1]
# Real third-party data and the site simulator live beside the checkout, never in it; a fresh clone
# has nothing there, and every test that needs them goes through shared_data / shared_bench to skip.
# XNEWS_SHARED_DIR points elsewhere (CI points it at an empty folder once, as a fresh clone has it).
SHARED = Path(os.environ.get("XNEWS_SHARED_DIR") or REPO / ".." / "shared").resolve()
SHARED_DATA = SHARED / "data"
PROFILES = REPO / "profiles"


def shared_data(*parts: str) -> Path:
    """A file or folder of ../shared/data, or skip the test with the reason."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared test data not found: {path}")
    return path


def shared_bench(*parts: str) -> Path:
    """A file or folder of ../shared/bench (the site simulator), or skip the test with the reason."""
    path = SHARED.joinpath("bench", *parts)
    if not path.exists():
        pytest.skip(f"the site simulator is not here: {path}")
    return path


def import_newsim():
    """The site simulator's module (../shared/bench/newsim.py), or skip the test with the reason."""
    import importlib.util
    import sys

    script = shared_bench("newsim.py")
    if "newsim" not in sys.modules:
        spec = importlib.util.spec_from_file_location("newsim", script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["newsim"] = module
    return sys.modules["newsim"]


@pytest.fixture
def data_dir(tmp_path) -> Path:
    path = tmp_path / "xnews-data"
    path.mkdir()
    return path


@pytest.fixture
def store(data_dir):
    """A real SQLite database in a temporary data folder: the ``Store`` that owns it."""
    from xnews_gui.store import Store

    opened = Store.open(data_dir)
    yield opened
    opened.close()


@pytest.fixture
def db(store):
    """The same open ``Store`` (for tests that only need one to exist)."""
    return store


@pytest.fixture(scope="session")
def demo_server():
    """The bundled demo site on a free loopback port."""
    from xnews_gui.demo import DemoServer

    server = DemoServer(port=0).start()
    yield server
    server.stop()


@pytest.fixture
def demo_profile(demo_server):
    """profiles/demo.json pointed at the running demo server."""
    from xnews_gui.core.profile.profile import Profile

    profile = Profile.from_json((PROFILES / "demo.json").read_text(encoding="utf-8"))
    return profile.with_(start_urls=(demo_server.url,))


@pytest.fixture
def cli(data_dir, capsys):
    """cli(*argv) -> (exit code, stdout, stderr) of the command line, run in-process on ``data_dir``."""
    from xnews_gui.cli import main

    def run(*argv):
        code = main(["--data-dir", str(data_dir), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run
