"""A laptop screen: at 1024x700, and with the font at 150%, every control of every tab can be reached, and
the topic correction is reached with the mouse, in the reader and in a row's menu. Screenshots go to
$XNEWS_SHOTS when set (else the test's temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton, QAbstractItemView, QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QLineEdit,
    QMenu, QTabBar, QToolBar, QToolButton, QWidget, QWidgetAction,
)

from tests.conftest import shared_data
from xnews_gui.bundled import seed_bundled_profiles
from xnews_gui.classify import corpus
from xnews_gui.ui.main_window import MainWindow

pytestmark = pytest.mark.gui
CONTROLS = (QAbstractButton, QComboBox, QLineEdit, QAbstractSpinBox, QAbstractItemView, QTabBar)


def shots(tmp_path) -> Path:
    folder = Path(os.environ["XNEWS_SHOTS"]) if os.environ.get("XNEWS_SHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def visible_part(widget: QWidget, window: QWidget) -> QRect:
    """The part of ``widget`` not clipped by its parents, in window coordinates."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        rect = rect.intersected(QRect(parent.mapTo(window, QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return rect.intersected(window.rect())


def scrolled_into_reach(widget: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea) and not isinstance(widget, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def cut_off(window: QWidget, page: QWidget, where: str = "") -> list[str]:
    """Controls of ``page`` that are cut off (and not in a scroll area), or hidden in a toolbar's overflow
    where its » button cannot show them (a widget, not an action)."""
    found = []
    for widget in page.findChildren(QWidget):
        if not widget.isVisibleTo(window):
            continue
        if isinstance(widget, QToolBar):
            for action in widget.actions():
                if isinstance(action, QWidgetAction) and not widget.widgetForAction(action).isVisible():
                    found.append(f"{where}: {type(action.defaultWidget()).__name__} in a toolbar's overflow")
        if not isinstance(widget, CONTROLS):
            continue
        part = visible_part(widget, window)
        whole = widget.width() * widget.height()
        if (part.width() * part.height() < 0.6 * whole or widget.width() < 12 or widget.height() < 8) \
                and not scrolled_into_reach(widget):
            name = widget.objectName() or getattr(widget, "text", lambda: "")() or type(widget).__name__
            found.append(f"{where}: {type(widget).__name__} {name!r} shows {part} of {widget.size()}")
    return found


def unreachable(qtbot, window) -> list[str]:
    found = []
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        qtbot.wait(150)
        found += cut_off(window, window.tabs.currentWidget(), window.tabs.tabText(index))
    return found


def test_the_check_finds_a_control_behind_a_toolbars_overflow_or_out_of_the_window(qtbot):
    from PySide6.QtWidgets import QPushButton, QVBoxLayout

    window = QWidget()
    qtbot.addWidget(window)
    bar = QToolBar(window)
    for name in ("Previous", "Next", "Read", "Star", "Open", "Copy"):
        bar.addAction(name)
    combo = QComboBox()
    combo.addItem("Chính trị Xã hội")
    bar.addWidget(combo)
    QVBoxLayout(window).addWidget(bar)
    late = QPushButton("Save", window)
    window.resize(200, 120)
    window.show()
    late.move(170, 100)
    qtbot.wait(50)
    found = cut_off(window, window, "probe")
    assert any("QComboBox in a toolbar's overflow" in f for f in found), found
    assert any("'Save'" in f for f in found), found
    late.move(10, 60)
    window.resize(900, 120)
    qtbot.wait(50)
    assert cut_off(window, window, "probe") == []


@pytest.fixture
def laptop(qtbot, store, monkeypatch):
    Article = store.models.Article
    from xnews_gui.ui import demo_launcher

    monkeypatch.setattr(demo_launcher, "DEMO_PORT", 0)
    seed_bundled_profiles(store)
    docs = corpus.load_folder(shared_data("vntc", "sample", "Test_Full"), limit_per_label=3)
    with store.writing():
        for i, d in enumerate(docs):
            title, _, body = d.text.partition("\n")
            Article.create(profile="vnexpress", url=f"https://vnexpress.net/a-{i}.html", title=title.strip(),
                           body_text=body, body_html="".join(f"<p>{p}</p>" for p in body.split("\n") if p.strip()),
                           content_hash=f"h{i}", category=d.label, confidence=0.8)

    def open_window(scale: float = 1.0) -> MainWindow:
        app = QApplication.instance()
        font = QFont(app.font())
        font.setPointSizeF(font.pointSizeF() * scale)
        app.setFont(font)
        window = MainWindow(store)
        qtbot.addWidget(window)
        window.resize(1024, 700)
        window.show()
        qtbot.waitUntil(lambda: window.articles.model.total() == len(docs), timeout=10000)
        assert (window.width(), window.height()) == (1024, 700), window.minimumSizeHint()
        return window

    normal = QFont(QApplication.instance().font())
    yield open_window
    QApplication.instance().setFont(normal)


def right_click(qtbot, widget: QWidget, pos: QPoint) -> None:
    """A right click as the window system delivers it: the press, the context menu event, the release
    (QTest sends the mouse events only)."""
    from PySide6.QtGui import QContextMenuEvent

    qtbot.mousePress(widget, Qt.MouseButton.RightButton, pos=pos)
    QApplication.sendEvent(widget, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, widget.mapToGlobal(pos)))
    qtbot.mouseRelease(widget, Qt.MouseButton.RightButton, pos=pos)


def with_popups(window: QWidget, *popups: QWidget):
    """The window's picture with its open menus painted where they are on screen."""
    from PySide6.QtGui import QPainter

    picture = window.grab()
    painter = QPainter(picture)
    for popup in popups:
        painter.drawPixmap(window.mapFromGlobal(popup.mapToGlobal(QPoint(0, 0))), popup.grab())
    painter.end()
    return picture


def pick_from_popup(qtbot, box: QComboBox, text: str) -> None:
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(box.width() - 8, box.height() // 2))  # its arrow
    popup = box.view()
    qtbot.waitUntil(popup.isVisible, timeout=3000)
    index = popup.model().index(box.findText(text), 0)
    popup.scrollTo(index)
    qtbot.wait(600)  # a combo box ignores a release right after its popup opened
    QTest.mouseClick(popup.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     popup.visualRect(index).center())


def correct_topics_with_the_mouse(qtbot, window, folder: Path, name: str) -> None:
    view = window.articles
    window.show_tab("articles")
    table = view.table
    index = view.model.index(2, 1)
    article = view.model.article_id(2)
    with qtbot.waitSignal(view.reader.pageReady, timeout=15000, check_params_cb=lambda i: i == article):
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(index).center())
    box = view.reader.category
    assert visible_part(box, window).width() >= box.minimumSizeHint().width()  # whole, not behind a »
    assert table.columnWidth(1) >= table.title_minimum()  # the titles stay readable
    window.grab().save(str(folder / f"{name}-reader.png"))
    pick_from_popup(qtbot, box, "Thể thao")
    qtbot.waitUntil(lambda: window.store.get_article(article).user_label == "The thao", timeout=5000)
    qtbot.waitUntil(lambda: view.model.index(2, 2).data() == "Thể thao", timeout=5000)

    # the same correction from a row's menu (right click), on another row
    other = view.model.article_id(4)
    rect = table.visualRect(view.model.index(4, 1))
    right_click(qtbot, table.viewport(), rect.center())
    menu = view.row_menu
    qtbot.waitUntil(menu.isVisible, timeout=3000)
    topic = next(a for a in menu.actions() if a.text().startswith("Topic"))
    qtbot.mouseMove(menu, menu.actionGeometry(topic).center())
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(topic).center())
    submenu = topic.menu()
    qtbot.waitUntil(submenu.isVisible, timeout=3000)
    with_popups(window, menu, submenu).save(str(folder / f"{name}-row-menu.png"))
    assert view.reader.article["id"] == article  # a right click selects the row, it does not open it
    choice = next(a for a in submenu.actions() if a.text() == "Kinh doanh")
    qtbot.mouseClick(submenu, Qt.MouseButton.LeftButton, pos=submenu.actionGeometry(choice).center())
    qtbot.waitUntil(lambda: window.store.get_article(other).user_label == "Kinh doanh", timeout=5000)
    qtbot.waitUntil(lambda: view.model.index(4, 2).data() == "Kinh doanh", timeout=5000)
    assert isinstance(menu, QMenu)


def test_at_1024x700_every_control_is_reachable_and_the_topic_correction_with_the_mouse(qtbot, laptop, tmp_path):
    window = laptop()
    folder = shots(tmp_path)
    assert unreachable(qtbot, window) == []
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        qtbot.wait(100)
        window.grab().save(str(folder / f"laptop-{window.tabs.tabText(index).split()[0].lower()}.png"))
    correct_topics_with_the_mouse(qtbot, window, folder, "laptop")


def overflow_reaches_its_actions(qtbot, window) -> list[str]:
    """Click each toolbar's » that shows: its menu must list the actions the bar had no room for."""
    reached = []
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        qtbot.wait(100)
        for bar in window.tabs.currentWidget().findChildren(QToolBar):
            more = bar.findChild(QToolButton, "qt_toolbar_ext_button")
            if more is None or not more.isVisible():
                continue
            hidden = [a.text() for a in bar.actions() if a.isVisible() and not a.isSeparator()
                      and not bar.widgetForAction(a).isVisible()]
            seen: dict = {}

            def read_the_menu(tries=60, seen=seen):  # the menu may run its own event loop inside the click
                popup = QApplication.activePopupWidget()
                if popup is None and tries:
                    QTimer.singleShot(50, lambda: read_the_menu(tries - 1, seen))
                    return
                seen["listed"] = [a.text() for a in popup.actions()] if isinstance(popup, QMenu) else []
                if popup is not None:
                    popup.close()

            QTimer.singleShot(50, read_the_menu)
            qtbot.mouseClick(more, Qt.MouseButton.LeftButton, pos=more.rect().center())
            qtbot.waitUntil(lambda seen=seen: "listed" in seen, timeout=5000)
            assert hidden and set(hidden) <= set(seen["listed"]), (hidden, seen["listed"])
            reached += hidden
    return reached


def test_with_the_font_at_150_percent_too(qtbot, laptop, tmp_path):
    window = laptop(1.5)
    folder = shots(tmp_path)
    assert unreachable(qtbot, window) == []
    assert "Remove" in overflow_reaches_its_actions(qtbot, window)  # the Sites tab's Pick bar has no room for all
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        qtbot.wait(100)
        window.grab().save(str(folder / f"laptop150-{window.tabs.tabText(index).split()[0].lower()}.png"))
    correct_topics_with_the_mouse(qtbot, window, folder, "laptop150")


def test_a_split_that_leaves_the_table_unreadable_is_not_kept(qtbot, laptop, store):
    window = laptop()
    view = window.articles
    window.show_tab("articles")
    handle = view.splitter.handle(1)
    start = handle.rect().center()
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=start)
    for x in range(start.x(), start.x() - 600, -40):  # drag the splitter far to the left
        qtbot.mouseMove(handle, QPoint(x, start.y()))
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=QPoint(start.x() - 600, start.y()))
    qtbot.wait(50)
    table = view.table
    assert view.splitter.sizes()[0] < table.readable_width()  # squeezed...
    assert table.columnWidth(1) >= table.title_minimum()  # ...the titles stay readable: it scrolls sideways
    bold = table.font()
    bold.setBold(True)  # an unread row's title: 24 characters of a real headline fit, not 17 to 19
    headline = "Quốc hội yêu cầu đẩy mạnh cải cách"[:24]
    assert table.title_minimum() >= QFontMetrics(bold).horizontalAdvance(headline)
    press_watches = window.watches_button  # the Watches panel takes room from the table, not from its titles
    qtbot.mouseClick(press_watches, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(view.watches.isVisible, timeout=3000)
    qtbot.wait(50)
    assert table.columnWidth(1) >= table.title_minimum()
    window.save_state()
    window.close()
    again = MainWindow(store)
    qtbot.addWidget(again)
    again.resize(1024, 700)
    again.show()
    qtbot.wait(50)
    sizes = again.articles.splitter.sizes()
    assert sizes[0] > sizes[1]  # the default split, not the squeezed one
