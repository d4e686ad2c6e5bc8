"""The whole window: tabs, first-start hint, demo crawl -> table -> reader with cached images."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWebEngineCore import QWebEngineScript

from tests.conftest import REPO
from xnews_gui.bundled import seed_bundled_profiles
from xnews_gui.core.text.topics import DISPLAY_NAMES
from xnews_gui.ui.main_window import TABS, MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, store, data_dir, monkeypatch):
    from xnews_gui.ui import demo_launcher

    monkeypatch.setattr(demo_launcher, "DEMO_PORT", 0)
    seed_bundled_profiles(store)
    win = MainWindow(store)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    yield win
    win.close()


def js(qtbot, page, expr):
    box = []
    page.runJavaScript(f"JSON.stringify({expr})", QWebEngineScript.ScriptWorldId.ApplicationWorld, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=5000)
    return json.loads(box[0])


def test_tabs_menus_and_first_start_hint(window):
    assert [window.tabs.tabText(i).split(" (")[0] for i in range(4)] == ["Sites", "Crawl", "Articles", "Classifier"]
    window.show_tab("crawl")
    assert window.crawl.hint.isVisible()
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&File", "&View", "&Crawl", "&Article", "&Help"]
    names = [window.crawl.profile_list.item(i).text() for i in range(window.crawl.profile_list.count())]
    assert any(n.startswith("demo") for n in names), names  # the bundled profile is offered on first start


def test_demo_crawl_then_read_offline(qtbot, window, data_dir):
    window.show_tab("crawl")
    window.crawl.demo_button.click()
    session = window.crawl.sessions["demo"]
    with qtbot.waitSignal(session.finished, timeout=60000):
        pass
    assert session.summary["articles"] > 0
    view = window.articles
    qtbot.waitUntil(lambda: view.model.total() == window.store.count_articles(), timeout=5000)

    # the Classifier tab counts what the crawl stored (it was built when the store was empty)
    stored = window.store.count_articles()
    bar = window.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(TABS.index("classifier")).center())
    assert window.tabs.currentWidget() is window.classifier
    qtbot.waitUntil(lambda: sum(n for _, n, _ in window.classifier.label_distribution()) == stored, timeout=5000)
    shown = {window.classifier.counts_table.item(r, 0).text() for r in range(window.classifier.counts_table.rowCount())}
    assert {"Chính trị Xã hội", "Thể thao", "Sức khỏe"} <= shown and not shown & {"The thao", "Suc khoe"}
    # and the table and the topic filter show the same Vietnamese names
    categories = {view.model.index(r, 2).data().split(" (")[0] for r in range(view.model.rowCount())}
    assert categories <= set(DISPLAY_NAMES.values()), categories
    filter_names = [view.category.itemText(i) for i in range(view.category.count())]
    assert categories <= set(filter_names) and view.category.itemData(filter_names.index("Thể thao")) == "The thao"
    window.show_tab("articles")
    reader = view.reader
    reader.guard.clear()
    with qtbot.waitSignal(reader.pageReady, timeout=15000, check_params_cb=lambda i: i > 0):
        view.table.setFocus()
        qtbot.keyClick(view.table, Qt.Key.Key_J)  # J: the first article
    first = reader.article["id"]
    qtbot.waitUntil(lambda: js(qtbot, reader.page, "[...document.images].every(i => i.complete)") is True)
    images = js(qtbot, reader.page, "[...document.images].map(i => [i.src, i.naturalWidth])")
    assert images and all(src.startswith("xnews://reader/img/") and w > 0 for src, w in images), images
    assert reader.guard.blocked == []
    qtbot.waitUntil(lambda: window.store.get_article(first).read, timeout=5000)  # a background write
    with qtbot.waitSignal(reader.pageReady, timeout=15000, check_params_cb=lambda i: i not in (0, first)):
        qtbot.keyClick(view.table, Qt.Key.Key_J)
    qtbot.keyClick(view.table, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: window.store.get_article(reader.article["id"]).starred, timeout=5000)
    qtbot.waitUntil(lambda: view.model.index(view.table.currentIndex().row(), 5).data() == "★", timeout=5000)


def test_export_from_view(qtbot, window, make_articles, tmp_path):
    make_articles(3)
    view = window.articles
    with qtbot.waitSignal(view.model.loaded):
        view.model.reload()
    out = tmp_path / "out.rss"
    with qtbot.waitSignal(view.statusMessage, timeout=10000, check_params_cb=lambda m: m.startswith("Exported")):
        view.export_to(view.model.all_ids(), "rss", out)
    assert out.read_text(encoding="utf-8").count("<item>") == 3


def test_geometry_is_restored(qtbot, store, data_dir, window):
    window.resize(760, 640)  # fits the offscreen screen, so restoreGeometry keeps it
    window.show_tab("classifier")
    window.save_state()
    again = MainWindow(store)
    qtbot.addWidget(again)
    assert again.tabs.currentIndex() == TABS.index("classifier")
    assert (again.size().width(), again.size().height()) == (760, 640)
    again.close()


QUIT_SCRIPT = """
import gc
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
import xnews_gui.ui.main_window as mw

shown = mw.MainWindow.show

def broken_slot():
    raise ZeroDivisionError("a slot broke")

def close_dialogs():
    for w in QApplication.topLevelWidgets():
        if isinstance(w, QMessageBox) and w.isVisible():
            print("dialog:", w.text(), flush=True)
            w.button(QMessageBox.StandardButton.Ok).click()

def show_then_quit(self):
    shown(self)
    self.show_tab("sites")
    QTimer.singleShot(800, broken_slot)
    QTimer.singleShot(1500, lambda: self.show_tab("articles"))
    QTimer.singleShot(2500, close_dialogs)
    QTimer.singleShot(3000, lambda: quit_now(self))

def quit_now(window):
    print("frozen:", gc.get_freeze_count(), flush=True)  # in the same turn as the close: nothing in between
    window.close()

mw.MainWindow.show = show_then_quit
from xnews_gui.ui.app import run
sys.exit(run(sys.argv[1]))
"""


def test_the_app_survives_a_broken_slot_and_quits_without_web_engine_warnings(tmp_path):
    """An exception in a slot is logged and shown, the app goes on; every web page goes before its
    profile, and all before Qt shuts down: no "Release of profile" warning (in the terminal or the log)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path),
               QT_QPA_PLATFORM="offscreen", QTWEBENGINE_DISABLE_SANDBOX="1")
    done = subprocess.run([sys.executable, "-c", QUIT_SCRIPT, str(tmp_path / "data")], env=env,
                          capture_output=True, text=True, timeout=120, cwd=str(REPO), check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "dialog: Something went wrong: ZeroDivisionError: a slot broke" in done.stdout, done.stdout
    frozen = int(done.stdout.split("frozen:")[1].split()[0])
    assert frozen > 10_000, "start-up's objects are left out of later full garbage collections"
    log = (tmp_path / "data" / "logs" / "xnews.log").read_text(encoding="utf-8")
    assert "unhandled exception in the main thread" in log and "in broken_slot" in log
    assert "xnews.qt" in log  # Qt's own messages land there too
    for where in (done.stderr, done.stdout, log):
        assert "Release of profile requested" not in where, where[-2000:]
        assert "WebEnginePage still not deleted" not in where


def test_focusing_the_table_opens_nothing_and_j_starts_at_the_top(qtbot, window, make_articles):
    ids = make_articles(3)
    view = window.articles
    with qtbot.waitSignal(view.model.loaded):
        view.model.reload()
    window.show_tab("articles")
    view.table.setFocus(Qt.FocusReason.TabFocusReason)  # Qt makes row 0 current, without selecting it
    qtbot.wait(100)
    assert view.reader.article is None and not any(window.store.get_article(i).read for i in ids)
    first = view.model.article_id(0)
    with qtbot.waitSignal(view.reader.pageReady, timeout=15000, check_params_cb=lambda i: i == first):
        qtbot.keyClick(view.table, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: [window.store.get_article(i).read for i in ids].count(True) == 1, timeout=5000)
