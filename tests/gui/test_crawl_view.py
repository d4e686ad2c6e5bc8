"""The dashboard: a crawl of the demo site started from it fills the results table while it runs."""

from __future__ import annotations

import pytest

from xnews_gui.ui.article_model import ArticleTableModel
from xnews_gui.ui.crawl_view import CrawlView
from xnews_gui.ui.error_model import ErrorTableModel
from xnews_gui.ui.rate_chart import RateChart
from xnews_gui.ui.settings import Preferences

pytestmark = pytest.mark.gui


def slow_prefs() -> Preferences:
    # polite enough that the crawl is still running when the first rows show up
    return Preferences(delay_s=0.02, concurrency=2)


def test_crawl_from_dashboard_fills_table_while_running(qtbot, store, data_dir, demo_profile):
    store.save_profile(demo_profile)
    view = CrawlView(store, preferences=slow_prefs)
    qtbot.addWidget(view)
    model = ArticleTableModel(store, flush_ms=50)
    view.articlesStored.connect(model.add_articles)
    with qtbot.waitSignal(model.loaded):
        model.reload()
    assert model.total() == 0

    view.set_checked(["demo"])
    view.start_button.click()
    session = view.sessions["demo"]
    with qtbot.waitSignal(model.rowsArrived, timeout=20000):
        pass
    assert session.is_active(), "rows should appear while the crawl is still running"
    assert 0 < model.rowCount()
    first = model.rowCount()
    qtbot.waitUntil(lambda: model.rowCount() > first, timeout=20000)  # more batches keep coming
    assert view.cards["demo"].progress.maximum() == 0  # busy indicator: no page limit
    assert view.pause_button.isEnabled() and view.stop_button.isEnabled()

    view.pause_button.click()
    assert session.state == "paused"
    view.resume_button.click()
    assert session.state == "running"
    with qtbot.waitSignal(session.finished, timeout=30000):
        view.stop_button.click()
    assert session.state == "stopped"
    qtbot.wait(200)
    stored = store.count_articles()
    qtbot.waitUntil(lambda: model.total() == stored, timeout=5000)
    assert "crawl stopped" in view.log.toPlainText()
    assert view.chart.samples


def test_demo_button_page_limit_summary_and_schedule(qtbot, store, data_dir, monkeypatch):
    from xnews_gui.bundled import seed_bundled_profiles
    from xnews_gui.ui import demo_launcher

    monkeypatch.setattr(demo_launcher, "DEMO_PORT", 0)  # never clash with a real instance
    seed_bundled_profiles(store)
    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0))
    qtbot.addWidget(view)
    assert not view.hint.isHidden()  # empty data folder: the newcomer's hint shows
    view.max_pages.setValue(15)
    view.schedule("demo", 5)
    view.demo_button.click()
    session = view.sessions["demo"]
    try:
        assert view.cards["demo"].progress.maximum() == 15  # a known limit: a real progress bar
        with qtbot.waitSignal(session.finished, timeout=30000) as done:
            pass
        assert done.args[0]["status"] == "limit"
        card = view.cards["demo"]
        assert not card.detail.isHidden() and "pages" in card.detail.text()
        assert "Next run" in card.next_run.text()
        assert "demo" in view.next_runs
    finally:
        view.schedule("demo", 0)
        view.shutdown()
    assert not view.demo.running


def test_summary_names_broken_fields(qtbot):
    from xnews_gui.ui.session_card import SessionCard

    card = SessionCard("site")
    qtbot.addWidget(card)
    card.set_summary({"pages": 10, "articles": 8, "broken_fields": [{"field": "author", "fill_rate": 0.1}]})
    assert "Rule probably broken" in card.detail.text() and "author" in card.detail.text()
    card.set_summary({"status": "stopped", "pages": 0, "stopped_reason": "the workers left with 2 request(s) "
                      "still queued; start workers to go on (the queue is kept in Redis)"})
    assert "Stopped:</b> the workers left with 2 request(s) still queued" in card.detail.text()
    card.set_stats({"pages": 261}, rate=0.0)  # the last second of a crawl that ends on slow robots.txt lookups
    card.set_summary({"pages": 261, "elapsed_s": 51.6, "pages_per_s": 5.06})
    assert card.values["rate"].text() == "5.1"  # the run's rate, not the last second's 0.0
    card.set_summary({"pages": 1, "articles": 1, "images": 0, "errors": 1, "elapsed_s": 2})
    assert "1 page, 1 new article, 0 seen before, 0 images, 1 error in 2.0 s." in card.detail.text()
    card.set_summary({"pages": 1, "articles": 1, "images": 0, "image_errors": 2, "errors": 0, "elapsed_s": 2})
    assert "0 images (2 not fetched), 0 errors in 2.0 s." in card.detail.text()  # they were not said at all
    card.set_summary({"pages": 500, "warnings": ["possible spider trap: more than 500 list pages like "
                                                 "http://x/cal/N/N/; such links are not followed"]})
    assert "Warning: possible spider trap" in card.detail.text() and "/cal/N/N/" in card.detail.text()


def test_error_model(qtmodeltester):
    model = ErrorTableModel(cap=3)
    model.add("demo", [{"url": f"http://x/{i}", "kind": "http", "message": "404"} for i in range(2)])
    qtmodeltester.check(model)
    model.add("demo", [{"url": "http://x/9", "kind": "timeout", "message": "slow"}] * 2)
    assert model.rowCount() == 3 and model.index(2, 2).data() == "timeout"
    qtmodeltester.check(model)


def test_chart_paints(qtbot):
    chart = RateChart(capacity=10)
    qtbot.addWidget(chart)
    chart.resize(300, 120)
    for i in range(12):
        chart.add(i * 0.7, i * 3)
    assert len(chart.samples) == 10
    assert not chart.grab().isNull()


def tick(qtbot, view, name: str) -> None:
    """Click the check box of a site in the list, as a person does."""
    from PySide6.QtCore import QPoint, Qt

    item = view.profile_list.findItems(name, Qt.MatchFlag.MatchExactly)[0]
    rect = view.profile_list.visualItemRect(item)
    before = item.checkState()
    qtbot.mouseClick(view.profile_list.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(rect.left() + 11, rect.center().y()))
    assert item.checkState() != before


def test_the_newest_crawl_card_is_on_top_in_view_and_a_recrawl_starts_clean(qtbot, store, demo_profile, tmp_path):
    from PySide6.QtCore import Qt

    names = [f"demo-{k}" for k in range(1, 5)]
    for name in names:
        store.save_profile(demo_profile.with_(name=name))
    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0, concurrency=2))
    qtbot.addWidget(view)
    view.resize(1100, 720)
    view.show()
    view.set_checked([])
    view.max_pages.setValue(4)

    def choose(*which):
        for name in view.checked_profiles():
            tick(qtbot, view, name)
        for name in which:
            tick(qtbot, view, name)

    def crawl(*which):
        choose(*which)
        qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
        for name in which:
            if view.sessions[name].is_active():
                with qtbot.waitSignal(view.sessions[name].finished, timeout=30000):
                    pass

    def in_view(card) -> bool:
        viewport = view.cards_scroll.viewport()
        top_left = card.mapTo(viewport, card.rect().topLeft())
        return 0 <= top_left.y() and top_left.y() + card.height() <= viewport.height() + 1

    for name in names:  # one after the other: each new card goes on top, in view
        crawl(name)
        assert view.cards_layout.indexOf(view.cards[name]) == 0
        qtbot.waitUntil(lambda n=name: in_view(view.cards[n]), timeout=3000)
    first = view.cards["demo-1"]
    assert not first.detail.isHidden() and "pages" in first.detail.text()
    view.cards_scroll.verticalScrollBar().setValue(view.cards_scroll.verticalScrollBar().maximum())

    # a re-crawl of the oldest site: its card comes back on top, scrolled into view, reset
    choose("demo-1")
    old_started = first.started.text()
    qtbot.wait(1100)  # the start time shown is to the second
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    assert view.cards_layout.indexOf(first) == 0 and first.detail.isHidden()
    assert first.started.text() != old_started
    qtbot.waitUntil(lambda: in_view(first), timeout=3000)
    assert len(view.cards) == 4
    with qtbot.waitSignal(view.sessions["demo-1"].finished, timeout=30000):
        pass
    view.grab().save(str(tmp_path / "crawl-cards.png"))


def test_ticking_demo_and_start_crawls_the_site_inside_the_app_not_what_holds_its_port(qtbot, store, monkeypatch):
    """Once the newcomer's hint is gone, the demo profile in the list still crawls the bundled site (started
    now), even when another server answers on the demo's port."""
    from PySide6.QtCore import Qt

    from tests.integration.crawl_helpers import Site, list_page
    from xnews_gui.bundled import seed_bundled_profiles
    from xnews_gui.ui import demo_launcher

    seed_bundled_profiles(store)
    with Site({"/": list_page(["/elsewhere/1.htm"])}) as other:  # someone else's site on "the demo's port"
        port = int(other.url.rsplit(":", 1)[1].strip("/"))
        monkeypatch.setattr(demo_launcher, "DEMO_PORT", port)  # taken: the demo starts on a free port
        store.save_profile(store.load_profile("demo").with_(start_urls=(f"http://127.0.0.1:{port}/",)))
        view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0))
        qtbot.addWidget(view)
        view.show()
        view.max_pages.setValue(5)
        assert not view.demo.running
        tick(qtbot, view, "demo")
        qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
        try:
            with qtbot.waitSignal(view.sessions["demo"].finished, timeout=30000) as done:
                pass
            assert view.demo.running and done.args[0]["pages"] >= 1 and done.args[0]["articles"] >= 1, done.args[0]
            assert not other.log  # the other site was never asked
        finally:
            view.shutdown()


def test_history_says_why_each_run_was_refused(qtbot, store):
    from xnews_gui.ui.run_history import RunHistory

    busy = ("a crawl of 'busy' is already running with this data folder (another XNews window or command); "
            "wait for it to end or stop it first")
    store.finish_run(store.start_run("old"), "refused", {})  # stored before runs kept their reason
    store.finish_run(store.start_run("busy"), "refused", {"status": "refused", "refused_reason": busy})
    history = RunHistory(store)
    qtbot.addWidget(history)
    history.refresh()
    qtbot.waitUntil(lambda: history.rowCount() == 2, timeout=5000)
    texts = {history.item(r, 1).text(): history.item(r, 2) for r in range(2)}
    assert texts["busy"].text().startswith("Refused: a crawl of 'busy' is already running") and \
        texts["busy"].text().endswith("…") and texts["busy"].toolTip() == busy
    assert texts["old"].text() == "Refused" and not texts["old"].toolTip()


def test_the_errors_table_shows_whole_times_sites_and_kinds(qtbot):
    """Rows that came while the Errors tab was hidden left its first columns at "21…", "tv…", "ro…"."""
    from xnews_gui.ui.error_model import ErrorTableModel, error_table

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPlainTextEdit, QTabWidget

    model = ErrorTableModel()
    view = error_table(model)
    tabs = QTabWidget()  # as in the Crawl tab: the log in front, the errors behind it
    qtbot.addWidget(tabs)
    tabs.addTab(QPlainTextEdit(), "Log")
    tabs.addTab(view, "Errors")
    tabs.resize(900, 300)
    tabs.show()
    qtbot.waitExposed(tabs)
    model.add("tvblog-of-a-long-name", [{"kind": "robots", "url": "http://127.0.0.1:8767/a",
                                         "message": "disallowed by robots.txt"}])
    qtbot.wait(50)
    bar = tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    qtbot.waitExposed(view)
    text = view.fontMetrics().horizontalAdvance
    for col in range(3):
        shown = model.data(model.index(0, col))
        assert view.columnWidth(col) > text(shown), (col, shown, view.columnWidth(col))
