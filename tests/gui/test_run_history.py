"""The dashboard's History tab: past runs, a run whose process was killed shown as interrupted."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt

from xnews_gui.ui.crawl_view import CrawlView
from xnews_gui.ui.settings import Preferences

pytestmark = pytest.mark.gui


def dead_pid() -> int:
    """The pid of a process that has ended."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(30)
    return proc.pid


def test_history_tab_shows_an_interrupted_run(qtbot, store):
    done = store.start_run("demo")
    store.finish_run(done, "finished", {"pages": 12, "articles": 9, "errors": 0})
    killed = store.start_run("demo")
    with store.write_lock:
        CrawlRun = store.models.CrawlRun
        CrawlRun.update(pid=dead_pid(), pages=5).where(CrawlRun.id == killed).execute()
    assert store.mark_interrupted_runs() == 1  # what the app and the CLI do when they start

    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0))
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    bar = view.bottom.tabBar()
    index = next(i for i in range(bar.count()) if bar.tabText(i) == "History")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert view.bottom.currentWidget() is view.history
    qtbot.waitUntil(lambda: view.history.rowCount() == 2, timeout=5000)
    assert view.history.statuses() == ["interrupted", "finished"]
    assert view.history.item(0, 2).text().startswith("Interrupted")
    assert view.history.item(1, 4).text() == "9"
    if os.environ.get("XNEWS_SHOTS"):
        view.grab().save(os.path.join(os.environ["XNEWS_SHOTS"], "run-history.png"))
    view.shutdown()


def test_after_a_restart_the_crawls_place_says_what_the_last_crawl_did(qtbot, store):
    """It said "No crawl yet" while History, one tab below, listed a finished crawl."""
    done = store.start_run("ruhrnews")
    store.finish_run(done, "finished", {"pages": 9, "articles": 7, "errors": 0})
    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0))
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitUntil(lambda: "The last one" in view.empty_label.text(), timeout=5000)
    assert view.empty_label.isVisible() and "No crawl yet" not in view.empty_label.text()
    assert view.empty_label.text().startswith("No crawl running. The last one: ruhrnews, finished, started 20")
    view.shutdown()


def test_start_with_no_site_ticked_says_what_to_do(qtbot, store):
    """Start with nothing ticked did nothing and said nothing."""
    from PySide6.QtWidgets import QToolTip

    from xnews_gui.ui.crawl_view import NOTHING_TICKED

    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0))
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    view.profile_list.setCurrentItem(None)
    assert not view.checked_profiles()
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    assert not view.sessions
    assert NOTHING_TICKED in view.log.toPlainText()
    qtbot.waitUntil(lambda: QToolTip.text() == NOTHING_TICKED, timeout=3000)
    view.shutdown()
