"""The results table model: modeltester, lazy loading, filters, live batched inserts."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from xnews_gui.store.queries import UNCATEGORIZED, ArticleFilter
from xnews_gui.ui.article_model import BLOCK, ID_ROLE, ArticleTableModel

pytestmark = pytest.mark.gui


def loaded_model(qtbot, store, **kwargs) -> ArticleTableModel:
    model = ArticleTableModel(store, **kwargs)
    with qtbot.waitSignal(model.loaded, timeout=5000):
        model.reload()
    return model


def test_modeltester_with_rows_and_live_inserts(qtbot, qtmodeltester, store, make_articles):
    make_articles(300)
    model = loaded_model(qtbot, store, flush_ms=10)
    qtmodeltester.check(model)  # exercises fetchMore too
    with qtbot.waitSignal(model.rowsArrived, timeout=5000):
        model.add_articles(make_articles(5))
    qtmodeltester.check(model)


def test_lazy_blocks_and_fetch_more(qtbot, store, make_articles):
    make_articles(BLOCK * 2 + 10)
    model = loaded_model(qtbot, store)
    assert model.total() == BLOCK * 2 + 10
    assert model.rowCount() == BLOCK
    assert model.canFetchMore()
    model.fetchMore()
    model.fetchMore()
    assert model.rowCount() == model.total() and not model.canFetchMore()
    # newest first by default
    assert model.index(0, 1).data() == f"Article {BLOCK * 2 + 10:06d}"


def test_sort_filter_and_search(qtbot, store, make_articles):
    make_articles(3, profile="a", category="Tech")
    make_articles(2, profile="b", category=None)
    make_articles(1, profile="b", category="Sport", title="Bóng đá Việt Nam thắng lớn", body_text="trận đấu")
    model = loaded_model(qtbot, store)
    assert model.total() == 6

    with qtbot.waitSignal(model.loaded):
        model.set_filter(ArticleFilter(profile="b"))
    assert model.total() == 3
    with qtbot.waitSignal(model.loaded):
        model.set_filter(ArticleFilter(category=UNCATEGORIZED))
    assert model.total() == 2
    with qtbot.waitSignal(model.loaded):
        model.set_filter(ArticleFilter(text="bong thang"))  # diacritics folded by the FTS tokenizer
    assert model.total() == 1 and "Bóng" in model.index(0, 1).data()
    with qtbot.waitSignal(model.loaded):
        model.set_filter(ArticleFilter(text="((("))
    assert model.total() == 0

    with qtbot.waitSignal(model.loaded):
        model.set_filter(ArticleFilter())
    with qtbot.waitSignal(model.loaded):
        model.sort(1, Qt.SortOrder.AscendingOrder)
    titles = [model.index(r, 1).data() for r in range(model.rowCount())]
    assert titles == sorted(titles)


def test_unread_filter_hidden_categories_and_refresh(qtbot, store, make_articles):
    ids = make_articles(4, category="Tech")
    make_articles(2, category="Boring")
    store.set_category_hidden("Boring", True)
    store.set_flags(ids[0], read=True)
    model = loaded_model(qtbot, store)
    assert model.total() == 4  # hidden category left out
    with qtbot.waitSignal(model.loaded):
        model.set_filter(ArticleFilter(unread_only=True))
    assert model.total() == 3
    row = 0
    aid = model.index(row, 0).data(ID_ROLE)
    assert model.index(row, 5).data() == "new"
    store.set_flags(aid, starred=True, read=True)
    with qtbot.waitSignal(model.dataChanged):
        model.refresh_article(aid)
    assert model.index(row, 5).data() == "★"


def test_live_rows_land_in_sorted_place(qtbot, store, make_articles):
    make_articles(10)
    model = loaded_model(qtbot, store, flush_ms=10)
    rows_before = model.rowCount()
    with qtbot.waitSignal(model.rowsArrived, timeout=5000) as blocker:
        model.add_articles(make_articles(3))
        model.add_articles([])  # batched with the previous call
    assert blocker.args == [3]
    assert model.rowCount() == rows_before + 3
    assert model.index(0, 1).data() == "Article 000013"  # newest on top
    # with a filter the new rows do not match, nothing is inserted
    with qtbot.waitSignal(model.loaded):
        model.set_filter(ArticleFilter(profile="other"))
    model.add_articles(make_articles(2))
    qtbot.wait(100)
    assert model.rowCount() == 0


def test_fetched_today_follows_the_clock_past_midnight(qtbot, store, make_articles):
    from datetime import datetime, timezone

    now = {"t": datetime(2026, 11, 30, 23, 59, 0)}
    fetched_local = datetime(2026, 11, 30, 23, 30)
    fetched_utc = fetched_local.astimezone().astimezone(timezone.utc).replace(tzinfo=None)
    make_articles(2, fetched_at=fetched_utc)
    model = loaded_model(qtbot, store, clock=lambda: now["t"])
    assert model.index(0, 4).data() == "23:30"  # today: the time only
    assert 60_000 <= model._midnight.remainingTime() <= 62_000  # armed for midnight

    now["t"] = datetime(2026, 12, 1, 0, 0, 30)  # the model was built yesterday
    with qtbot.waitSignal(model.dataChanged, timeout=3000) as changed:
        model._midnight.timeout.emit()  # what the armed timer does at midnight
    assert changed.args[0].column() == changed.args[1].column() == 4
    assert model.index(0, 4).data() == "2026-11-30 23:30"
    assert 86_000_000 <= model._midnight.remainingTime() <= 86_402_000  # and re-armed for the next one

    # a timer that came late (the machine slept): the next paint uses the new date anyway
    now["t"] = datetime(2026, 12, 3, 9, 0)
    assert model.index(0, 4).data() == "2026-11-30 23:30"
    with qtbot.waitSignal(model.dataChanged, timeout=3000):
        pass
    assert model.today() == "2026-12-03"


def test_painting_runs_no_sql_rows_arrive_from_a_worker(qtbot, store, make_articles):
    from PySide6.QtWidgets import QTableView

    make_articles(BLOCK * 3)
    model = loaded_model(qtbot, store)
    statements: list[str] = []
    store.db.connection().set_trace_callback(statements.append)  # this (GUI) thread's connection
    try:
        view = QTableView()
        qtbot.addWidget(view)
        view.setModel(model)
        view.resize(800, 400)
        view.show()
        qtbot.waitExposed(view)
        view.grab()  # paints the first block: read with the order, no query
        assert model.index(0, 1).data() == f"Article {BLOCK * 3:06d}"
        model.fetchMore()
        model.fetchMore()
        view.scrollToBottom()
        view.grab()  # rows of blocks 2 and 3 are read by workers, not here
        last = model.index(BLOCK * 3 - 1, 1)
        qtbot.waitUntil(lambda: last.data() == "Article 000001", timeout=5000)
        view.grab()
    finally:
        store.db.connection().set_trace_callback(None)
    assert statements == []


def test_a_jump_far_down_shows_the_row_in_one_insert_and_one_block_read(qtbot, store, make_articles):
    make_articles(BLOCK * 4)
    model = loaded_model(qtbot, store)
    inserts: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _parent, first, last: inserts.append((first, last)))
    target = BLOCK * 3 + 5
    wanted = model.article_id(target)
    assert model.show_through(target)
    assert inserts == [(BLOCK, BLOCK * 4 - 1)]  # whole blocks, one step (a worker for the one block asked)
    assert model.row_of(wanted) == target and model.rowCount() == BLOCK * 4
    qtbot.waitUntil(lambda: model.index(target, 1).data() is not None, timeout=5000)
    assert model.index(target, 1).data(ID_ROLE) == wanted
    assert model.index(BLOCK + 5, 1).data() is None  # the blocks in between were not read
    assert not model.show_through(BLOCK * 4) and model.show_through(0)
