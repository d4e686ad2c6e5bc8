"""The Articles tab as a person uses it: rows clicked with the mouse, keys, the reader follows the list."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWebEngineCore import QWebEngineScript

from xnews_gui.ui.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, store, data_dir):
    win = MainWindow(store)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    win.show_tab("articles")
    yield win
    win.close()


@pytest.fixture
def view(qtbot, window, make_articles):
    make_articles(6)
    view = window.articles
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        view.model.reload()
    return view


def heading(qtbot, reader) -> str:
    box = []
    reader.page.runJavaScript("JSON.stringify((document.querySelector('h1') || document.body).innerText)",
                              QWebEngineScript.ScriptWorldId.ApplicationWorld, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=5000)
    return json.loads(box[0])


def row_point(view, row: int) -> QPoint:
    index = view.model.index(row, 1)
    view.table.scrollTo(index)
    return view.table.visualRect(index).center()


def expect_row(qtbot, view, row: int, action) -> None:
    """Do ``action``; the reader must then show ``row``'s article, and that row is the highlighted one."""
    aid = view.model.article_id(row)
    with qtbot.waitSignal(view.reader.pageReady, timeout=15000, check_params_cb=lambda i: i == aid):
        action()
    assert view.reader.article["id"] == aid
    assert heading(qtbot, view.reader) == view.model.article_row(row)["title"]
    current = view.table.currentIndex()
    assert current.row() == row and view.table.selectionModel().isRowSelected(row, current.parent())


def click(view, row: int, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, modifier, row_point(view, row))


def test_click_double_click_enter_and_keys_open_the_highlighted_row(qtbot, view, tmp_path):
    table = view.table
    table.setFocus(Qt.FocusReason.TabFocusReason)  # row 0 current, not selected: nothing opens
    qtbot.wait(50)
    assert view.reader.article is None
    expect_row(qtbot, view, 0, lambda: QTest.keyClick(table, Qt.Key.Key_Return))  # Enter opens it

    expect_row(qtbot, view, 3, lambda: click(view, 3))  # a single mouse click
    qtbot.waitUntil(lambda: view.store.get_article(view.model.article_id(3)).read, timeout=5000)
    expect_row(qtbot, view, 1, lambda: click(view, 1))
    expect_row(qtbot, view, 2, lambda: QTest.keyClick(table, Qt.Key.Key_J))
    expect_row(qtbot, view, 1, lambda: QTest.keyClick(table, Qt.Key.Key_K))
    expect_row(qtbot, view, 2, lambda: QTest.keyClick(table, Qt.Key.Key_Down))
    expect_row(qtbot, view, 1, lambda: QTest.keyClick(table, Qt.Key.Key_Up))
    expect_row(qtbot, view, 5, lambda: QTest.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton,
                                                         Qt.KeyboardModifier.NoModifier, row_point(view, 5)))
    view.window().grab().save(str(tmp_path / "articles-clicked.png"))

    # the reader is cleared (e.g. the article was filtered out); clicking the row that is
    # still current and selected opens it again
    view.reader.clear()
    expect_row(qtbot, view, 5, lambda: click(view, 5))


def test_the_reader_drops_an_article_the_search_excludes_and_keeps_one_it_includes(qtbot, view):
    expect_row(qtbot, view, 2, lambda: click(view, 2))
    title = view.model.article_row(2)["title"]
    other = view.model.article_row(4)["title"]

    # a search that still finds the article: its row stays highlighted, the reader keeps it
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        QTest.keyClicks(view.search, title.split()[0])  # "Article": every row
    row = view.model.row_of(view.reader.article["id"])
    assert view.reader.article is not None and view.table.currentIndex().row() == row >= 0

    # a search that excludes it: the reader lets it go
    view.search.clear()
    with qtbot.waitSignal(view.reader.pageReady, timeout=15000, check_params_cb=lambda i: i == 0):
        QTest.keyClicks(view.search, other.split()[1])
    assert view.model.total() == 1 and view.reader.article is None
    assert "not in the list" in heading(qtbot, view.reader)
    expect_row(qtbot, view, 0, lambda: click(view, 0))
    assert view.reader.article["title"] == other


ENGLISH = ("The city council met on Tuesday evening to discuss the new budget for schools, roads and the "
           "public library, and agreed to publish the full plan before the end of the month.")


def test_an_article_without_topic_shows_a_dash_and_says_why(qtbot, window, make_articles, tmp_path):
    view = window.articles
    english = make_articles(1, category=None, confidence=0.0, title="Council agrees budget", body_text=ENGLISH,
                            summary="")[0]
    short = make_articles(1, category=None, confidence=0.0, title="Tin ngắn", body_text="Hà Nội mưa to.",
                          summary="")[0]
    never = make_articles(1, category=None, confidence=None)[0]
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        view.model.reload()
    rows = {view.model.article_id(r): r for r in range(view.model.rowCount())}
    cell = {aid: view.model.index(rows[aid], 2) for aid in (english, short, never)}
    assert cell[english].data() == cell[short].data() == "—"
    assert cell[never].data() == ""
    assert cell[english].data(Qt.ItemDataRole.ToolTipRole) == "No topic: not Vietnamese"
    assert cell[short].data(Qt.ItemDataRole.ToolTipRole).startswith("No topic: too short (")
    assert "Not classified" in cell[never].data(Qt.ItemDataRole.ToolTipRole)

    expect_row(qtbot, view, rows[english], lambda: click(view, rows[english]))
    box = []
    view.reader.page.runJavaScript(
        "JSON.stringify([document.querySelector('.category').innerText, document.querySelector('.category').title])",
        QWebEngineScript.ScriptWorldId.ApplicationWorld, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=5000)
    assert json.loads(box[0]) == ["—", "No topic: not Vietnamese"]
    assert view.reader.category.toolTip().startswith("No topic: not Vietnamese")
    assert view.reader.category.lineEdit().placeholderText() == "—"
    qtbot.wait(300)  # let the page paint before the screenshot
    window.grab().save(str(tmp_path / "no-topic.png"))
    # the topic filter offers these articles under "(no topic)"
    assert view.category.itemText(view.category.count() - 1) == "(no topic)"
