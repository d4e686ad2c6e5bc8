"""The small things a reader meets, each done with the mouse: the highlighted row stays in view while
rows arrive, titles sort in Vietnamese order and the sort is kept, opening the original and copying
the link say so, Export asks when one row is selected (CSV topics with their accents), File imports a
profile, the crawl chart's axis shows "3,750"."""

from __future__ import annotations

import csv
import shutil

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.conftest import PROFILES
from tests.gui.test_articles_view import click_menu
from xnews_gui.store.collation import vi_sorted
from xnews_gui.ui.main_window import MainWindow

pytestmark = pytest.mark.gui


def click(qtbot, widget, pos=None):
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos if pos is not None else widget.rect().center())


@pytest.fixture
def window(qtbot, store):
    win = MainWindow(store)
    qtbot.addWidget(win)
    win.resize(1024, 700)
    win.show()
    win.show_tab("articles")
    yield win
    win.close()


def loaded(qtbot, view) -> None:
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        view.model.reload()


def click_row(qtbot, view, row: int) -> None:
    index = view.model.index(row, 1)
    qtbot.wait(50)  # the table has laid its rows out: it can scroll to this one
    view.table.scrollTo(index)
    assert view.table.viewport().rect().contains(view.table.visualRect(index))
    aid = view.model.article_id(row)
    with qtbot.waitSignal(view.reader.pageReady, timeout=15000, check_params_cb=lambda i: i == aid):
        click(qtbot, view.table.viewport(), view.table.visualRect(index).center())


def test_the_highlighted_row_stays_where_it_is_while_a_crawl_inserts_rows(qtbot, window, make_articles):
    view = window.articles
    make_articles(80)
    loaded(qtbot, view)
    click_row(qtbot, view, 40)
    reading = view.reader.article["id"]
    before = view.table.visualRect(view.table.currentIndex()).top()
    assert view.table.viewport().rect().contains(view.table.visualRect(view.table.currentIndex()))
    new = make_articles(30)  # newer: the table (newest first) puts them above
    with qtbot.waitSignal(view.model.rowsArrived, timeout=5000):
        view.add_articles(new)
    qtbot.wait(50)
    current = view.table.currentIndex()
    assert view.model.article_id(current.row()) == reading and current.row() == 70
    assert view.table.visualRect(current).top() == before  # not 30 rows further down, out of view
    assert view.table.viewport().rect().contains(view.table.visualRect(current))


def test_titles_sort_in_vietnamese_order_and_the_sort_is_kept_across_restarts(qtbot, window, store, make_articles):
    titles = ["Chính phủ họp", "Các trường khai giảng", "Đà Nẵng mưa lớn", "Dân hiến đất", "Vũng Tàu đón khách"]
    for title in titles:
        make_articles(1, title=title)
    view = window.articles
    loaded(qtbot, view)
    header = view.table.horizontalHeader()
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        click(qtbot, header.viewport(), QPoint(header.sectionViewportPosition(1) + 20, header.height() // 2))
    shown = [view.model.article_row(r)["title"] for r in range(view.model.rowCount())]
    order = header.sortIndicatorOrder()
    assert header.sortIndicatorSection() == 1
    expected = vi_sorted(titles)
    assert shown == (expected if order == Qt.SortOrder.AscendingOrder else expected[::-1])
    assert shown.index("Đà Nẵng mưa lớn") - shown.index("Dân hiến đất") == (1 if order == Qt.SortOrder.AscendingOrder
                                                                             else -1)
    window.close()

    again = MainWindow(store)  # the next start
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: again.articles.model.total() == 5, timeout=5000)
    header = again.articles.table.horizontalHeader()
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (1, order)
    assert [again.articles.model.article_row(r)["title"] for r in range(5)] == shown
    again.close()


def test_open_original_and_copy_link_say_what_they_did(qtbot, window, make_articles, monkeypatch):
    opened = []

    class Browser:
        @staticmethod
        def openUrl(url):  # noqa: N802 - Qt's name
            opened.append(url.toString())
            return True

    monkeypatch.setattr("xnews_gui.ui.reader.QDesktopServices", Browser)  # no real browser in a test
    make_articles(3)
    view = window.articles
    loaded(qtbot, view)
    click_row(qtbot, view, 1)
    url = view.reader.article["url"]
    toolbar = view.reader.toolbar
    click(qtbot, toolbar.widgetForAction(view.reader.actions_["copy"]))
    assert QGuiApplication.clipboard().text() == url
    assert window.statusBar().currentMessage() == f"Link copied: {url}"
    click(qtbot, toolbar.widgetForAction(view.reader.actions_["open"]))
    assert opened == [url] and window.statusBar().currentMessage() == f"Opened the original in your browser: {url}"


def answer(qtbot, starts: str) -> None:
    qtbot.waitUntil(lambda: any(isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.topLevelWidgets()),
                    timeout=5000)
    box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
    click(qtbot, next(b for b in box.buttons() if b.text().startswith(starts)))


def test_export_with_one_row_selected_asks_and_csv_names_topics_with_accents(qtbot, window, make_articles,
                                                                            monkeypatch, tmp_path):
    make_articles(6, category="Van hoa")
    view = window.articles
    loaded(qtbot, view)
    click_row(qtbot, view, 2)  # reading one article: one row selected
    chosen = view.model.article_id(2)
    out = tmp_path / "one.csv"
    from xnews_gui.export import FORMATS

    monkeypatch.setattr("xnews_gui.ui.article_export.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(out), FORMATS["csv"]))
    click_menu(qtbot, window, "File", "Export articles…")
    with qtbot.waitSignal(view.statusMessage, timeout=10000, check_params_cb=lambda m: m.startswith("Exported")):
        answer(qtbot, "The selected one (1)")
    rows = list(csv.DictReader(out.open(encoding="utf-8-sig")))
    assert [int(r["id"]) for r in rows] == [chosen] and rows[0]["category"] == "Văn hóa"

    everything = tmp_path / "all.csv"
    monkeypatch.setattr("xnews_gui.ui.article_export.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(everything), FORMATS["csv"]))
    click_menu(qtbot, window, "File", "Export articles…")
    with qtbot.waitSignal(view.statusMessage, timeout=10000, check_params_cb=lambda m: m.startswith("Exported")):
        answer(qtbot, "All listed (6)")
    assert len(list(csv.DictReader(everything.open(encoding="utf-8-sig")))) == 6


def test_the_file_menu_imports_a_profile(qtbot, window, store, monkeypatch, tmp_path):
    source = tmp_path / "nha-bao.json"
    shutil.copy(PROFILES / "demo.json", source)
    shutil.copytree(PROFILES / "samples", tmp_path / "samples")  # its self-test page lies beside it
    source.write_text(source.read_text(encoding="utf-8").replace('"name": "demo"', '"name": "nha-bao"'),
                      encoding="utf-8")
    monkeypatch.setattr("xnews_gui.ui.sites_files.QFileDialog.getOpenFileName", lambda *a, **k: (str(source), ""))
    with qtbot.waitSignal(window.sites.profileSaved, timeout=10000):
        click_menu(qtbot, window, "File", "Import profile…")
    assert "nha-bao" in store.profile_names() and window.tabs.currentWidget() is window.sites
    assert window.sites.profiles.findItems("nha-bao", Qt.MatchFlag.MatchExactly)
    qtbot.waitUntil(lambda: bool(window.crawl.profile_list.findItems("nha-bao", Qt.MatchFlag.MatchExactly)),
                    timeout=5000)


def test_the_chart_axis_shows_thousands_whole(qtbot, tmp_path):
    from xnews_gui.ui.rate_chart import RateChart

    chart = RateChart(capacity=10)
    qtbot.addWidget(chart)
    chart.resize(300, 150)
    chart.show()
    for i in range(10):
        chart.add(i * 1.3, i * 416.7)  # 3,750 articles
    qtbot.mouseMove(chart, QPoint(150, 75))
    rates, articles = chart.axis_labels()
    assert articles == ["5,000", "3,750", "2,500", "1,250", "0"] and rates[0] == "20"
    chart.grab().save(str(tmp_path / "chart.png"))
    for _ in range(10):
        chart.add(0, 123_456)
    assert chart.axis_labels()[1][:2] == ["200k", "150k"]


def test_a_letter_typed_in_the_open_topic_list_chooses_a_topic_and_runs_no_shortcut(qtbot, window, make_articles, store):
    """T opens the topic list; S in it went to the reader's Star (and O opened the browser, the link left on the
    clipboard): a letter now moves the list to a topic, as in any list."""
    from PySide6.QtTest import QTest

    view = window.articles
    make_articles(5)
    loaded(qtbot, view)
    click_row(qtbot, view, 1)
    aid = view.reader.article["id"]
    QTest.keyClick(view.table, Qt.Key.Key_T)
    popup = view.reader.category.view()
    qtbot.waitUntil(popup.isVisible, timeout=3000)
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_S)
    assert not store.get_article(aid).starred
    assert popup.currentIndex().data() == "Sức khỏe" and popup.isVisible()
    qtbot.wait(QApplication.keyboardInputInterval() + 100)  # a new search, not "so"
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_O)
    assert "browser" not in window.statusBar().currentMessage()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not popup.isVisible(), timeout=3000)
    assert store.get_article(aid).user_label is None and not store.get_article(aid).starred
