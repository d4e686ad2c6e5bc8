"""Re-crawl schedules in real time: an interval is real minutes across a DST change (it was added to local
wall-clock time: 90 minutes at the autumn change, 15 in spring), and Stop ends the run, not the schedule
(the schedule went quiet until a restart while the card still said it re-crawls)."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone

import pytest

from xnews_gui.ui.crawl_schedule import CrawlScheduler


@pytest.fixture
def berlin():
    old = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/Berlin"
    time.tzset()
    if time.tzname != ("CET", "CEST"):
        pytest.skip("no time zone data on this machine (tzdata)")
    yield
    if old is None:
        os.environ.pop("TZ")
    else:
        os.environ["TZ"] = old
    time.tzset()


def at(utc: str) -> datetime:
    """The local time ``datetime.now()`` gives at that UTC instant (with the repeated hour marked)."""
    return datetime.fromtimestamp(datetime.fromisoformat(utc).replace(tzinfo=timezone.utc).timestamp())


@pytest.mark.parametrize("set_at, due_at, early", [
    ("2026-10-25T00:45:00", "2026-10-25T01:15:00", "2026-10-25T01:14:00"),  # autumn: 02:45 CEST, then 02:15 CET
    ("2026-03-29T00:45:00", "2026-03-29T01:15:00", "2026-03-29T01:14:00"),  # spring: 01:45 CET, then 03:15 CEST
    ("2026-07-01T10:00:00", "2026-07-01T10:30:00", "2026-07-01T10:29:00"),
])
def test_every_30_minutes_is_30_real_minutes_across_a_dst_change(qtbot, store, berlin, set_at, due_at, early):
    now = {"t": at(set_at)}
    scheduler = CrawlScheduler(store, clock=lambda: now["t"])
    scheduler.set("demo", 30)
    now["t"] = at(early)
    assert scheduler.due() == []
    now["t"] = at(due_at)
    assert scheduler.due() == ["demo"]


def test_the_next_run_shows_in_local_time(qtbot, store, berlin):
    now = {"t": at("2026-07-01T10:00:00")}  # 12:00 in Berlin
    scheduler = CrawlScheduler(store, clock=lambda: now["t"])
    scheduler.set("demo", 30)
    assert scheduler.next_run("demo") == datetime(2026, 7, 1, 12, 30)
    assert scheduler.text("demo").endswith("next run 12:30")
    assert store.schedules()["demo"].next_run == datetime(2026, 7, 1, 10, 30)  # the store keeps UTC


def test_stopping_a_scheduled_crawl_stops_the_run_not_the_schedule(qtbot, store):
    now = {"t": datetime(2026, 7, 1, 12, 0)}
    scheduler = CrawlScheduler(store, clock=lambda: now["t"])
    scheduler.set("demo", 30)
    scheduler.started("demo")
    now["t"] = datetime(2026, 7, 1, 12, 5)
    scheduler.finished("demo", "stopped")
    assert scheduler.text("demo") == "Re-crawled every 30 min while XNews is open; next run 12:35"
    now["t"] = datetime(2026, 7, 1, 12, 35)
    assert scheduler.due() == ["demo"]
    assert store.schedules()["demo"].next_run is not None  # a restart waits for it, not 3 s


def test_a_scheduled_crawl_stopped_by_closing_the_app_runs_soon_after_a_restart(qtbot, store):
    """Closing the app stops its crawls: that is no run's end, so no next run is stored and the restart
    runs it a few seconds after start-up (a daily schedule waited a whole day)."""
    now = {"t": datetime(2026, 7, 1, 12, 0)}
    scheduler = CrawlScheduler(store, clock=lambda: now["t"])
    scheduler.set("demo", 24 * 60)
    scheduler.started("demo")
    scheduler.stop_timing()  # the window closes
    scheduler.finished("demo", "stopped")
    assert store.schedules()["demo"].next_run is None and scheduler.next_runs == {}
    again = CrawlScheduler(store, clock=lambda: now["t"])
    again.load(["demo"])
    assert again.next_run("demo") == datetime(2026, 7, 1, 12, 0, 3)
