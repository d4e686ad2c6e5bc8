"""What the Crawl tab keeps over a restart: a schedule (it runs again), and a crawl the app was closed
during (quitting asks first; after the restart the crawl is shown, with Resume)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox

from xnews_gui.bundled import seed_bundled_profiles
from xnews_gui.ui.crawl_view import CrawlView
from xnews_gui.ui.settings import Preferences

pytestmark = pytest.mark.gui


def click(qtbot, widget, pos=None):
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos if pos is not None else widget.rect().center())


def tick(qtbot, view, name: str) -> None:
    item = view.profile_list.findItems(name, Qt.MatchFlag.MatchExactly)[0]
    rect = view.profile_list.visualItemRect(item)
    click(qtbot, view.profile_list.viewport(), QPoint(rect.left() + 11, rect.center().y()))


def test_a_one_minute_schedule_runs_again_within_two_minutes_of_a_restart(qtbot, store, demo_profile, tmp_path):
    store.save_profile(demo_profile)
    prefs = lambda: Preferences(delay_s=0.0, concurrency=2)  # noqa: E731
    first = CrawlView(store, preferences=prefs)
    qtbot.addWidget(first)
    first.resize(1024, 700)
    first.show()
    first.max_pages.setValue(3)
    tick(qtbot, first, "demo")
    click(qtbot, first.schedule_minutes.lineEdit())
    first.schedule_minutes.setValue(1)
    click(qtbot, first.schedule_box, QPoint(8, first.schedule_box.height() // 2))
    assert first.schedule_box.isChecked() and first.scheduler.minutes_of("demo") == 1
    assert store.schedules()["demo"].minutes == 1
    click(qtbot, first.start_button)
    with qtbot.waitSignal(first.sessions["demo"].finished, timeout=30000):
        pass
    stored = store.schedules()["demo"]
    assert stored.next_run is not None  # a minute after the crawl ended, kept in the store
    assert "Next run" in first.cards["demo"].next_run.text()
    first.shutdown()
    first.close()

    # the app starts again a minute later: the schedule is back, in both lists, and the run comes
    later = lambda: datetime.now() + timedelta(seconds=61)  # noqa: E731
    restarted = time.monotonic()
    again = CrawlView(store, preferences=prefs, clock=later)
    qtbot.addWidget(again)
    again.resize(1024, 700)
    again.show()
    card = again.cards["demo"]
    assert "Next run" in card.next_run.text() and "Scheduled" in card.state.text()
    item = again.profile_list.findItems("demo", Qt.MatchFlag.MatchExactly)[0]
    assert "Re-crawled every 1 min" in item.toolTip() and not item.icon().isNull()
    tick(qtbot, again, "demo")
    assert again.schedule_box.isChecked() and again.schedule_minutes.value() == 1  # not "unticked, 30 min"
    again.grab().save(str(tmp_path / "crawl-after-restart.png"))
    qtbot.waitUntil(lambda: "demo" in again.sessions, timeout=15000)
    assert 61 + (time.monotonic() - restarted) < 120  # the app's clock: within 2 minutes of the restart
    with qtbot.waitSignal(again.sessions["demo"].finished, timeout=30000):
        pass
    click(qtbot, again.schedule_box, QPoint(8, again.schedule_box.height() // 2))  # untick: no schedule
    assert store.schedules()["demo"].minutes == 0 and "demo" not in again.next_runs
    again.shutdown()


def test_the_sites_list_shows_the_schedule_as_the_crawl_tab_does(qtbot, store, demo_profile):
    from xnews_gui.ui.crawl_schedule import schedule_texts

    store.save_profile(demo_profile)
    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0))
    qtbot.addWidget(view)
    view.schedule("demo", 45)
    crawl_item = view.profile_list.findItems("demo", Qt.MatchFlag.MatchExactly)[0]
    assert schedule_texts(store)["demo"] == view.scheduler.text("demo") != ""
    assert view.scheduler.text("demo") in crawl_item.toolTip()
    assert "every 45 min" in view.scheduler.text("demo")
    view.shutdown()


def message_box(qtbot) -> QMessageBox:
    from PySide6.QtWidgets import QApplication

    qtbot.waitUntil(lambda: any(isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.topLevelWidgets()),
                    timeout=5000)
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())


def test_quitting_during_a_crawl_asks_and_the_restart_offers_to_resume_it(qtbot, store, monkeypatch, tmp_path):
    from xnews_gui.ui import demo_launcher
    from xnews_gui.ui.main_window import MainWindow

    monkeypatch.setattr(demo_launcher, "DEMO_PORT", 0)
    seed_bundled_profiles(store)
    Preferences(delay_s=0.3, concurrency=1).save()  # slow enough to be running when the user quits
    try:
        window = MainWindow(store)
        qtbot.addWidget(window)
        window.resize(1024, 700)
        window.show()
        window.show_tab("crawl")
        click(qtbot, window.crawl.demo_button)
        session = window.crawl.sessions["demo"]
        qtbot.waitUntil(lambda: session.state == "running", timeout=20000)
        window.close()
        box = message_box(qtbot)
        assert "XNews is crawling demo" in box.text()
        click(qtbot, next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.RejectRole))
        assert window.isVisible() and session.is_active()  # Cancel: nothing stops
        window.close()
        box = message_box(qtbot)
        click(qtbot, next(b for b in box.buttons() if b.text() == "Quit"))
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=20000)
        assert store.schedules()["demo"].interrupted is not None

        # the next start: the crawl tab shows the interrupted crawl, Resume goes on with it
        again = MainWindow(store)
        qtbot.addWidget(again)
        again.resize(1024, 700)
        again.show()
        again.show_tab("crawl")
        card = again.crawl.cards["demo"]
        assert "Interrupted" in card.state.text() and card.resume_btn.isVisible()
        assert "stopped when XNews was closed" in card.detail.text() and "No crawl yet" not in card.detail.text()
        assert again.crawl.empty_label.isHidden()
        pages = card.values["pages"].text()  # the card's counters say what its note says, not "–"
        assert pages != "–" and f"({pages} pages" in card.detail.text()
        again.grab().save(str(tmp_path / "interrupted.png"))
        click(qtbot, card.resume_btn)
        resumed = again.crawl.sessions["demo"]
        assert resumed.is_active() and store.schedules()["demo"].interrupted is None
        with qtbot.waitSignal(resumed.finished, timeout=60000):
            resumed.stop()
        again.close()
    finally:
        Preferences().save()


def test_quitting_during_a_retrain_asks_and_keeps_no_model(qtbot, store, monkeypatch):
    from tests.conftest import shared_data
    from xnews_gui.services.model_registry import Registry
    from xnews_gui.ui.main_window import MainWindow

    window = MainWindow(store)
    qtbot.addWidget(window)
    window.show()
    window.show_tab("classifier")
    window.classifier.set_corpus_dir(shared_data("vntc", "sample"))
    click(qtbot, window.classifier.retrain_button)
    qtbot.waitUntil(lambda: "Retraining: " in window.classifier.status.text(), timeout=20000)
    window.close()
    box = message_box(qtbot)
    assert "A model is being trained: it stops and is not kept." in box.text()
    click(qtbot, next(b for b in box.buttons() if b.text() == "Quit"))
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=20000)
    assert window.classifier.job is None or not window.classifier.job.running
    assert Registry(store.root).ids() == []
