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
