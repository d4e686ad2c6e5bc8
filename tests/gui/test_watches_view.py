"""A watch made in the app with the mouse fires once per new matching article while the app crawls: a
notification is asked for, the Articles tab gets a badge, the watch's own list fills, its Atom feed gets
the entries and its webhook (a real HTTP server) the articles; crawling again fires nothing."""

from __future__ import annotations

import os
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

from xnews_gui.bundled import seed_bundled_profiles
from xnews_gui.demo.site import DemoSite
from xnews_gui.services.watches import feed_path
from xnews_gui.ui.main_window import TABS, MainWindow

from ..integration.test_watches import ATOM, Hook, matching

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def press(widget, point: QPoint | None = None) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     point or QPoint(widget.width() // 2, widget.height() // 2))


def type_into(widget, text: str) -> None:
    press(widget)
    QTest.keyClicks(widget, text)


def press_item(qtbot, view, row: int) -> None:
    rect = view.visualItemRect(view.item(row))
    press(view.viewport(), rect.center())


@pytest.fixture
def window(qtbot, store, monkeypatch):
    from xnews_gui.ui import demo_launcher

    monkeypatch.setattr(demo_launcher, "DEMO_PORT", 0)
    seed_bundled_profiles(store)
    win = MainWindow(store)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def crawl_the_demo(qtbot, window) -> dict:
    bar = window.tabs.tabBar()
    press(bar, bar.tabRect(TABS.index("crawl")).center())
    press(window.crawl.demo_button)
    session = window.crawl.sessions["demo"]
    with qtbot.waitSignal(session.finished, timeout=90_000) as done:
        pass
    return done.args[0]


def test_a_watch_made_with_the_mouse_tells_of_each_new_match_once(qtbot, window, store, data_dir, tmp_path):
    shots = Path(os.environ.get("XNEWS_SCREENSHOTS") or tmp_path)
    articles = window.articles
    bar = window.tabs.tabBar()
    press(bar, bar.tabRect(TABS.index("sites")).center())
    press(window.watches_button)  # beside the tabs: it opens the Articles tab with the watches
    panel = articles.watches
    assert window.tabs.currentWidget() is articles and panel.isVisible() and "No watch yet" in panel.feed.text()
    with Hook() as hook:
        press(panel.new_button)
        dialog = panel.dialog
        qtbot.waitExposed(dialog)
        type_into(dialog.words, "bong")  # no accents needed, as in a search
        assert dialog.name.placeholderText() == "bong" and dialog.chosen_name() == "bong"  # unless given a name
        type_into(dialog.name, "Tin bong")  # a name typed is the name, not more of the suggestion
        assert dialog.chosen_name() == "Tin bong"
        dialog.name.clear()
        topics = [dialog.topic.itemText(i) for i in range(dialog.topic.count())]
        assert topics[0] == "Any topic" and {"Đời sống", "Văn hóa", "Vi tính"} <= set(topics)  # none stored yet
        type_into(dialog.webhook, hook.url)
        dialog.grab().save(str(shots / "watch-1-new.png"))
        press(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok))
        assert store.watch("bong") is not None and panel.list.count() == 1
        assert feed_path(data_dir, "bong").is_file()

        summary = crawl_the_demo(qtbot, window)
        wanted = matching(DemoSite(), "bong")
        qtbot.waitUntil(lambda: len(hook.posts) == len(wanted), timeout=20_000)
    assert summary["articles"] == 72 and len(wanted) > 1
    def told() -> int:
        found = [re.fullmatch(r"XNews: (\d+) new articles? for \u201cbong\u201d", t) for t, _ in window.watch_alerts.asked]
        assert all(found), window.watch_alerts.asked
        return sum(int(m.group(1)) for m in found)
    qtbot.waitUntil(lambda: told() >= len(wanted), timeout=5000)  # the last matches are gathered for a moment
    assert told() == len(wanted) and len(window.watch_alerts.asked) <= 3  # each match told once, a few messages
    assert window.tabs.tabText(TABS.index("articles")).endswith(f"\u2605 {len(wanted)}")
    assert window.watches_button.text() == f"\u2605 Watches ({len(wanted)} new)"
    assert panel.list.item(0).text() == f"bong \u2014 {len(wanted)} new \u00b7 {len(wanted)}"
    base = summary and window.crawl.demo.profile().start_urls[0].rstrip("/")
    feed = ET.parse(feed_path(data_dir, "bong")).getroot().findall(f"{ATOM}entry")
    assert sorted(e.find(f"{ATOM}link").get("href") for e in feed) == sorted(base + p for p in wanted)
    assert sorted(p["url"] for p in hook.posts) == sorted(base + p for p in wanted)
    window.grab().save(str(shots / "watch-2-badge.png"))

    # the Articles tab shows the watch, still selected, and its list: looked at, its articles are seen
    press(bar, bar.tabRect(TABS.index("articles")).center())
    assert panel.isVisible() and panel.current_name() == "bong" and panel.hits.count() == len(wanted)
    qtbot.waitUntil(lambda: "\u2605" not in window.tabs.tabText(TABS.index("articles")), timeout=5000)
    assert window.watches_button.text() == "\u2605 Watches" and store.unseen_watch_hits() == {}
    assert panel.list.item(0).text() == f"bong \u2014 {len(wanted)}"

    # a click on an article of its list opens it in the reader
    press_item(qtbot, panel.list, 0)
    assert panel.hits.count() == len(wanted)
    with qtbot.waitSignal(articles.reader.pageReady, timeout=15_000):
        press_item(qtbot, panel.hits, 1)
    assert articles.reader.article["id"] == panel.hits.item(1).data(Qt.ItemDataRole.UserRole)
    qtbot.wait(600)  # the reader's page painted
    window.grab().save(str(shots / "watch-3-list.png"))

    # the same site crawled again: its articles are known, nothing fires
    asked = len(window.watch_alerts.asked)
    crawl_the_demo(qtbot, window)
    qtbot.wait(2000)  # longer than a notification's gathering
    assert len(window.watch_alerts.asked) == asked and store.watch_hit_counts() == {"bong": len(wanted)}
    assert "\u2605" not in window.tabs.tabText(TABS.index("articles"))

    press_item(qtbot, panel.list, 0)
    press(panel.remove_button)
    box = panel.confirm_box
    press(box.button(QMessageBox.StandardButton.Yes))
    assert store.watches() == [] and panel.list.count() == 0 and not feed_path(data_dir, "bong").exists()


def test_matches_that_come_while_the_window_is_minimised_stay_new(qtbot, window, store):
    from tests.integration.test_watches import article_of

    store.add_watch("bong", words="bong")
    panel = window.articles.watches
    press(window.watches_button)
    panel.refresh()
    panel.select("bong")
    qtbot.waitUntil(lambda: panel.current_name() == "bong", timeout=3000)
    window.showMinimized()
    qtbot.waitUntil(window.isMinimized, timeout=3000)
    line = {"url": "https://a.vn/bong-1.htm", "title": "Bóng đá hôm nay", "body_text": "Trận bóng đá. " * 30}
    store.store_article(article_of(line), "a")
    store.match_watches([store.db.execute_sql("SELECT max(id) FROM article").fetchone()[0]])
    panel.refresh()  # what a crawl's watchesFired does
    qtbot.wait(300)
    assert store.unseen_watch_hits() == {"bong": 1}  # nobody looked: it stays new, the badge tells
    window.showNormal()

    dialog = panel.new_watch("gia xang")  # words given as it opens: they name it, not the example
    assert dialog.chosen_name() == "gia xang"
    dialog.reject()
