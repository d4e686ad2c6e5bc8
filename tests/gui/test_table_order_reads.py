"""The results table's order is read in chunks (the GUI thread gets the interpreter lock between
them), once per change, and a replaced order is freed in a worker: same rows, same order."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from xnews_gui.store import queries
from xnews_gui.store.queries import ArticleFilter
from xnews_gui.ui import display_order
from xnews_gui.ui.article_model import ArticleTableModel
from xnews_gui.ui.display_order import DisplayOrder

pytestmark = pytest.mark.gui


def plain_order(store, sort: str, desc: bool) -> list[tuple]:
    """The order as one fetchall of the same query (what the table showed before chunking)."""
    direction = "DESC" if desc else "ASC"
    sql = (f"SELECT {queries.sort_expr(sort)} AS k, a.id FROM article a WHERE {ArticleFilter().where()[0]} "
           f"ORDER BY k {direction}, a.id {direction}")
    return [tuple(r) for r in store.db.execute_sql(sql).fetchall()]


@pytest.mark.parametrize("sort", ["title", "published", "status", "category"])
def test_a_chunked_read_gives_the_same_order(store, make_articles, monkeypatch, sort):
    ids = make_articles(23, category="Tech") + make_articles(8, category=None)
    store.set_flags(ids[3], read=True)
    store.set_flags(ids[5], starred=True)
    monkeypatch.setattr(queries, "FETCH_ROWS", 5)
    chunks = []
    keys, got = store.ordered_columns(ArticleFilter(), sort, False, keep_going=lambda: chunks.append(1) or True)
    assert list(zip(keys, got)) == plain_order(store, sort, False)
    assert len(chunks) == 7  # 31 rows, 5 a time
    assert store.ordered_keys(ArticleFilter(), sort, True) == plain_order(store, sort, True)


def test_a_read_no_longer_wanted_stops_at_the_next_chunk(store, make_articles, monkeypatch):
    make_articles(30)
    monkeypatch.setattr(queries, "FETCH_ROWS", 4)
    asked = []

    def wanted() -> bool:
        asked.append(1)
        return len(asked) < 2

    assert DisplayOrder.read(store, ArticleFilter(), "title", False, wanted) is None
    assert len(asked) == 2


def test_live_inserts_go_where_a_full_read_puts_them(store, make_articles):
    make_articles(20)
    order = DisplayOrder.read(store, ArticleFilter(), "title", True)
    new = store.ordered_keys(ArticleFilter(), "title", True, make_articles(3, title="Article 000010b"))
    for item in new:
        order.insert(order.position(item, True), [item])
    assert list(zip(order.keys, order.ids)) == plain_order(store, "title", True)
    assert order.row_of(new[1][1]) == [i for _, i in plain_order(store, "title", True)].index(new[1][1])
    assert order.row_of(10**9) == -1


def test_a_replaced_order_is_emptied_off_the_gui_thread(qtbot, monkeypatch):
    emptied_on = []
    real = display_order._empty

    def spy(containers):
        emptied_on.append(threading.current_thread() is threading.main_thread())
        real(containers)

    monkeypatch.setattr(display_order, "_empty", spy)
    keys, rows, known = [str(i) for i in range(20000)], {i: (i,) for i in range(20000)}, set(range(20000))
    display_order.release(keys, rows, known, [])
    qtbot.waitUntil(lambda: not (keys or rows or known) and bool(emptied_on), timeout=5000)
    assert emptied_on == [False]


def test_reloads_asked_together_read_once(qtbot, store, make_articles, monkeypatch):
    make_articles(12)
    reads = []
    real = ArticleTableModel._read_order
    monkeypatch.setattr(ArticleTableModel, "_read_order", lambda self, *a: reads.append(a) or real(self, *a))
    model = ArticleTableModel(store)
    with qtbot.waitSignal(model.loaded, timeout=5000):
        model.reload()
        model.set_filter(ArticleFilter(profile="site"))
        model.sort(1, Qt.SortOrder.AscendingOrder)
    assert len(reads) == 1 and reads[0][:3] == (ArticleFilter(profile="site"), "title", False)
    assert [model.index(r, 1).data() for r in range(model.rowCount())] == [f"Article {k:06d}" for k in range(1, 13)]


def test_a_click_on_a_column_header_reads_the_order_once(qtbot, store, make_articles, monkeypatch):
    from xnews_gui.ui.main_window import MainWindow

    make_articles(9)
    win = MainWindow(store)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    win.show_tab("articles")
    view = win.articles
    qtbot.waitUntil(lambda: view.model.total() == 9 and not view.model.is_loading(), timeout=5000)
    reads = []
    real = ArticleTableModel._read_order
    monkeypatch.setattr(ArticleTableModel, "_read_order", lambda self, *a: reads.append(a[1:3]) or real(self, *a))
    header = view.table.horizontalHeader()
    x = header.sectionViewportPosition(1) + header.sectionSize(1) // 2
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2))
    qtbot.wait(100)
    assert len(reads) == 1 and reads[0][0] == "title"
    titles = [view.model.index(r, 1).data() for r in range(view.model.rowCount())]
    assert titles == sorted(titles) or titles == sorted(titles, reverse=True)
    assert sorted(titles) == [f"Article {k:06d}" for k in range(1, 10)]
    win.grab().save(str(store.root / "header-sorted.png"))
    reads.clear()
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        view.table.sortByColumn(4, Qt.SortOrder.DescendingOrder)  # Qt asks the model to sort twice here
    qtbot.wait(100)
    assert reads == [("fetched_at", True)]
    assert view.model.index(0, 1).data() == "Article 000009"
    win.close()
