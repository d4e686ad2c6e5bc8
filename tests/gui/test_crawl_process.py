"""The app's crawl runs in a process of its own (its threads never hold the window's interpreter
lock), driven from the dashboard with the mouse: articles arrive, pause and stop reach it."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from xnews_gui.services.crawl import ClassifierLoader
from xnews_gui.ui.crawl_view import CrawlView
from xnews_gui.ui.settings import Preferences

pytestmark = pytest.mark.gui


def click(qtbot, button) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=button.rect().center())


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_dashboards_crawl_runs_in_a_child_process_and_obeys_the_buttons(qtbot, store, demo_profile, tmp_path):
    store.save_profile(demo_profile)
    loader = ClassifierLoader(store.root)  # as the main window hands it: the data folder's model
    view = CrawlView(store, classifier_loader=loader, preferences=lambda: Preferences(delay_s=0.02, concurrency=2))
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    view.set_checked(["demo"])
    arrived: list[int] = []
    view.articlesStored.connect(arrived.extend)
    click(qtbot, view.start_button)
    session = view.sessions["demo"]
    qtbot.waitUntil(lambda: len(arrived) >= 2, timeout=30_000)
    assert session.is_active()
    run = store.recent_runs(1, profile="demo")[0]
    assert run.status == "running" and run.pid != os.getpid(), "the crawl runs in a process of its own"
    assert alive(run.pid)

    click(qtbot, view.pause_button)
    assert session.state == "paused" and view.resume_button.isEnabled()
    click(qtbot, view.resume_button)
    assert session.state == "running"
    with qtbot.waitSignal(session.finished, timeout=30_000) as done:
        click(qtbot, view.stop_button)
    view.grab().save(str(tmp_path / "crawl-process-stopped.png"))
    summary = done.args[0]
    assert summary["status"] == "stopped" and session.state == "stopped"
    assert "Stopped" in view.cards["demo"].state.text()
    assert not alive(run.pid), "the crawl's process ends with the crawl"
    stored = {a["id"]: a for a in store.articles_in_order()}
    assert arrived and set(arrived) <= set(stored), "every article the dashboard was told of is stored"
    assert all(stored[i]["confidence"] is not None for i in arrived), "the child classified them with the model"
    assert loader._model is None, "the app's process never loaded the model: the crawl's process did"
    assert store.recent_runs(1, profile="demo")[0].status == "stopped"
