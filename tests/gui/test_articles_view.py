"""The Articles tab as a person uses it: rows clicked with the mouse, keys, the reader follows the list."""

from __future__ import annotations

import json
from pathlib import Path

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

    # a search with no word in it ("(", a bare "title:") finds nothing and says why, not only "0 articles"
    for typed in ("(", "title:"):
        view.search.clear()
        qtbot.mouseClick(view.search, Qt.MouseButton.LeftButton)
        with qtbot.waitSignal(view.model.loaded, timeout=5000):
            QTest.keyClicks(view.search, typed)
        qtbot.waitUntil(lambda: view.count.text() == "no word", timeout=5000)
        assert view.model.total() == 0 and "has no word to search for" in view.count.toolTip()
        qtbot.waitUntil(lambda: "has no word to search for" in heading(qtbot, view.reader), timeout=10000)


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


def test_hiding_a_topic_with_a_click_drops_its_articles_from_the_list_at_once(qtbot, window, make_articles):
    from xnews_gui.ui.main_window import TABS

    make_articles(3, category="The thao")
    make_articles(2, category="Kinh doanh")
    view = window.articles
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        view.model.reload()
    assert view.model.total() == 5
    bar = window.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(TABS.index("classifier")).center())
    table = window.classifier.counts_table
    qtbot.waitUntil(lambda: ("The thao", 3, False) in window.classifier.label_distribution(), timeout=10000)
    row = [label for label, _n, _h in window.classifier.label_distribution()].index("The thao")

    def click_hide():
        rect = table.visualItemRect(table.item(row, 2))
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         QPoint(rect.left() + 10, rect.center().y()))

    click_hide()
    # no filter touched: the list follows once the store has it (a reload already on its way may come first)
    qtbot.waitUntil(lambda: view.model.total() == 2, timeout=10000)
    assert {view.model.article_row(r)["category"] for r in range(2)} == {"Kinh doanh"}
    # the second click must meet the table after it has shown the topic hidden (else it hides again)
    qtbot.waitUntil(lambda: ("The thao", 3, True) in window.classifier.label_distribution(), timeout=10000)
    click_hide()
    qtbot.waitUntil(lambda: view.model.total() == 5, timeout=10000)


def click_menu(qtbot, window, menu_title: str, action_text: str) -> None:
    """Open a menu of the menu bar and click one of its actions, with the mouse."""
    bar = window.menuBar()
    top = next(a for a in bar.actions() if a.text().replace("&", "") == menu_title)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(top).center())
    menu = top.menu()
    qtbot.waitUntil(menu.isVisible, timeout=3000)
    action = next(a for a in menu.actions() if a.text().replace("&", "") == action_text)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def test_the_export_dialog_opens_in_documents_or_home_not_the_current_folder(qtbot, window, view, tmp_path,
                                                                           monkeypatch):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog, QLineEdit

    from tests.gui.dialogs import when_shown
    from xnews_gui.ui.article_export import EXPORT_FOLDER, EXPORT_FORMAT, export_folder

    QSettings().remove(EXPORT_FOLDER)
    QSettings().remove(EXPORT_FORMAT)
    elsewhere = tmp_path / "started-here"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    seen = {}

    def look_and_cancel(dialog) -> None:
        seen["folder"] = Path(dialog.directory().absolutePath())
        seen["file"] = dialog.findChild(QLineEdit, "fileNameEdit").text()
        dialog.grab().save(str(tmp_path / "export-dialog.png"))
        cancel = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Cancel)
        QTest.mouseClick(cancel, Qt.MouseButton.LeftButton)

    when_shown(QFileDialog, look_and_cancel)
    click_menu(qtbot, window, "File", "Export articles…")
    qtbot.waitUntil(lambda: "folder" in seen, timeout=15000)
    assert seen["folder"] != elsewhere and seen["folder"] == export_folder()
    assert seen["folder"] in (Path.home(), Path(export_folder()))
    assert seen["file"] == "xnews-export.epub"
    qtbot.waitUntil(lambda: not any(isinstance(w, QFileDialog) and w.isVisible()
                                    for w in QApplication.topLevelWidgets()), timeout=5000)


def test_title_and_date_columns_are_wide_enough_at_the_default_size(qtbot, window, view):
    from PySide6.QtGui import QFontMetrics

    table = view.table
    assert table.columnWidth(1) >= 280, table.columnWidth(1)
    bold = table.font()
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    for column, text in ((3, "2026-11-28 14:55"), (4, "2026-11-28 14:55")):
        assert metrics.horizontalAdvance(text) + 8 <= table.columnWidth(column), (column, table.columnWidth(column))


def test_view_reload_shows_what_a_command_changed_in_the_data_folder(qtbot, window, view, make_articles, store,
                                                                      demo_profile):
    from PySide6.QtCore import Qt as _Qt

    assert view.model.total() == 6
    make_articles(4)  # as `crawl` in a terminal stores them, behind the window's back
    store.save_profile(demo_profile.with_(name="from-a-command"))
    assert view.model.total() == 6 and not window.sites.profiles.findItems("from-a-command",
                                                                           _Qt.MatchFlag.MatchExactly)
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        click_menu(qtbot, window, "View", "Reload from the data folder")
    assert view.model.total() == 10
    assert window.sites.profiles.findItems("from-a-command", _Qt.MatchFlag.MatchExactly)
    assert window.crawl.profile_list.findItems("from-a-command", _Qt.MatchFlag.MatchExactly)
    assert window.statusBar().currentMessage().startswith("Reloaded")
