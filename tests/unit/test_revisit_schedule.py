"""When stored articles are asked again: the adapted interval (λ̂ = changes / time watched), the crawl
state's watch list, the source dates compared, and the outlook the Sites and Crawl tabs read."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from xnews_gui.crawl.discovery import meaningful_dates
from xnews_gui.crawl.revisit import article_interval
from xnews_gui.crawl.revisits import Revisits, source_date
from xnews_gui.crawl.sitemaps import SitemapEntry
from xnews_gui.crawl.state import CrawlState, revisit_outlook

HOUR, DAY = 3600.0, 86400.0


def test_an_article_never_seen_changing_waits_twice_as_long_each_time_up_to_the_cap():
    interval = HOUR
    seen = []
    for _ in range(6):
        interval = article_interval(0, 10 * DAY, interval, HOUR, 7 * DAY)
        seen.append(interval)
    assert seen == [2 * HOUR, 4 * HOUR, 8 * HOUR, 16 * HOUR, 32 * HOUR, 64 * HOUR]
    assert article_interval(0, 30 * DAY, 6 * DAY, HOUR, 7 * DAY) == 7 * DAY


def test_the_interval_follows_the_observed_change_rate():
    # λ̂ = 6 changes / 6 hours = one an hour, checked every 4 hours (r = λ̂ / f = 4): checked hourly now
    assert article_interval(6, 6 * HOUR, 4 * HOUR, 0.25 * HOUR, 7 * DAY) == pytest.approx(HOUR)
    # one change in 2 days, checked hourly (r = 1/48): longer, but at most twice as long as last time
    assert article_interval(1, 2 * DAY, HOUR, 0.25 * HOUR, 7 * DAY) == 2 * HOUR
    # the floor holds for a story changing every minute
    assert article_interval(120, 2 * HOUR, HOUR, 0.5 * HOUR, 7 * DAY) == 0.5 * HOUR


def test_the_watch_list_gives_due_articles_most_overdue_first_within_the_budget(tmp_path):
    state = CrawlState(tmp_path / "p.sqlite3")
    t0 = 1_000_000.0
    for i, url in enumerate(("http://s/a", "http://s/b", "http://s/c")):
        state.watch(url, HOUR, now=t0 + i)
    state.watch("http://s/old", HOUR, now=t0 - 30 * DAY)  # stored long ago: no longer watched
    assert state.due_articles(10, watched_since=t0 - 14 * DAY, now=t0 + 10) == []
    due = state.due_articles(2, watched_since=t0 - 14 * DAY, now=t0 + HOUR + 5)
    assert due == ["http://s/a", "http://s/b"]
    # a revisit that found no change: the next one twice as late; one that found a change in the hour it
    # was watched: in an hour again (λ̂ = 1 / hour)
    assert state.article_checked("http://s/a", False, HOUR, 7 * DAY, now=t0 + HOUR) == 2 * HOUR
    assert state.article_checked("http://s/b", True, 0.25 * HOUR, 7 * DAY, now=t0 + HOUR) == pytest.approx(HOUR, abs=2)
    assert state.due_articles(10, t0 - 14 * DAY, now=t0 + 2 * HOUR) == ["http://s/c", "http://s/b"]
    assert state.next_article_check(t0 - 14 * DAY) == pytest.approx(t0 + 2 + HOUR)
    state.close()


def test_two_misses_in_a_row_count_and_an_answer_clears_them(tmp_path):
    state = CrawlState(tmp_path / "p.sqlite3")
    state.watch("http://s/a", HOUR, now=100.0)
    assert state.article_missed("http://s/a", now=200.0) == (1, None)
    assert state.article_missed("http://s/a", now=205.0) == (2, 200.0)
    state.article_checked("http://s/a", False, HOUR, DAY, now=300.0)  # it answered: a passing error
    assert state.article_missed("http://s/a", now=400.0) == (1, None)
    state.article_gone("http://s/a")
    assert state.due_articles(10, 0.0, now=1e12) == []  # gone: no more scheduled revisits
    state.close()


def test_the_outlook_is_read_while_a_crawl_holds_the_state(tmp_path):
    path = tmp_path / "p.sqlite3"
    assert revisit_outlook(path, 0.0) is None  # never crawled
    running = CrawlState(path)  # a crawl holds the state's lock
    running.watch("http://s/a", HOUR, now=1000.0)
    running.watch("http://s/b", 2 * HOUR, now=1000.0)
    running.commit()
    outlook = revisit_outlook(path, 0.0, now=1000.0 + 1.5 * HOUR)
    assert outlook == {"next_at": 1000.0 + HOUR, "due": 1, "watched": 2}
    running.close()


def test_a_copys_source_date_is_the_later_of_its_last_modified_and_its_lastmod():
    assert source_date("Tue, 02 Jan 2024 10:00:00 GMT") == "2024-01-02T10:00:00+00:00"
    assert source_date("Tue, 02 Jan 2024 10:00:00 GMT", "2024-01-03T08:00:00+07:00") == "2024-01-03T01:00:00+00:00"
    assert source_date("", "") == "" and source_date("not a date", "nor this") == ""
    # a server's date UTC cannot hold is no date (it raised, and the article page was lost)
    assert source_date("Fri, 31 Dec 9999 23:59:59 -0100", "0001-01-01T00:00:00+05:00") == ""
    assert source_date("Fri, 31 Dec 9999 23:59:59 -0100", "2024-01-03T08:00:00+07:00") == "2024-01-03T01:00:00+00:00"


class _Options:
    revisit, revisit_urls, gone_confirm_s = False, (), 3.0


class _Profile:
    class crawl:  # noqa: N801
        article_revisit_min, article_revisit_max_min, watch_days, revisit_budget = 60.0, 10080.0, 14.0, 2


def test_a_stored_copy_is_newer_only_by_the_sites_own_dates_and_the_budget_holds():
    r = Revisits(_Profile, _Options, state=None, sink=object(), stats=None, emit=lambda *a: None)
    then = datetime(2024, 1, 6, 1, 49, tzinfo=timezone.utc)
    copy = {"modified_at": then.isoformat(), "fetched_at": "2026-12-04 23:00:00"}
    assert not r.newer(copy, then) and not r.newer(copy, then + timedelta(seconds=1))
    assert r.newer(copy, then + timedelta(days=1))  # the sitemap moved: a revisit, though long before our clock
    unknown = {"modified_at": "", "fetched_at": "2026-12-04 23:00:00"}  # no date of the source kept: our clock
    assert not r.newer(unknown, datetime(2026, 12, 4, 23, 30, tzinfo=timezone.utc))
    assert r.newer(unknown, datetime(2026, 12, 5, 1, 0, tzinfo=timezone.utc))
    assert [r.spend() for _ in range(3)] == [True, True, False]
    request = r.request("http://s/a", {"etag": 'W/"7-1"', "last_modified": "Tue, 02 Jan 2024 10:00:00 GMT"})
    assert request.flags == {"revisit"} and request.kind == "article"
    assert request.headers == {"If-None-Match": 'W/"7-1"', "If-Modified-Since": "Tue, 02 Jan 2024 10:00:00 GMT"}


def test_a_sitemap_dating_every_page_the_same_moment_says_nothing_about_them():
    now = datetime(2026, 12, 4, 23, 0, tzinfo=timezone.utc)
    same = [SitemapEntry(f"http://s/{i}", now + timedelta(seconds=i % 2)) for i in range(14)]
    assert not meaningful_dates(same)
    spread = [SitemapEntry(f"http://s/{i}", now - timedelta(hours=i)) for i in range(14)]
    assert meaningful_dates(spread) and meaningful_dates(same[:2]) and meaningful_dates([SitemapEntry("http://s/x")])


def test_a_gone_article_is_asked_again_at_the_slowest_rate(tmp_path, monkeypatch):
    """Two 404s a few seconds apart (a move, a short outage) marked an article gone and ended its revisits
    for ever: the reader said "removed at the source" with nothing to bring it back but "Revisit all"."""
    from tests.integration.crawl_helpers import make_profile
    from xnews_gui.crawl import CrawlOptions
    from xnews_gui.crawl import revisits as revisits_module
    from xnews_gui.crawl.request import Request
    from xnews_gui.crawl.revisits import Revisits
    from xnews_gui.crawl.stats import CrawlStats

    clock = {"t": 1_000_000.0}
    monkeypatch.setattr(revisits_module.time, "time", lambda: clock["t"])
    state = CrawlState(tmp_path / "p.sqlite3")
    profile = make_profile("http://s/", article_revisit_min=60, article_revisit_max_min=24 * 60, watch_days=30)
    revisits = Revisits(profile, CrawlOptions(gone_confirm_s=3.0), state, None, CrawlStats(), lambda *a: None)
    state.watch("http://s/a", HOUR, now=clock["t"])
    ask = Request("http://s/a", "article", 1, "", "", 1.0)
    clock["t"] += 10
    state.article_missed("http://s/a", now=clock["t"] - 5)
    assert revisits.missing(ask, 404) == "gone"
    assert state.due_articles(10, 0.0, now=clock["t"] + DAY - 60) == []
    assert state.due_articles(10, 0.0, now=clock["t"] + DAY + 1) == ["http://s/a"]  # asked again a day later
    clock["t"] += DAY + 1
    still = Request("http://s/a", "article", 1, "", "", 1.0, extra={"was_gone": True})
    assert revisits.missing(still, 404) == "gone"  # still gone: the next ask a day later, not every pass
    assert state.due_articles(10, 0.0, now=clock["t"] + 60) == []
    assert state.due_articles(10, 0.0, now=clock["t"] + DAY + 1) == ["http://s/a"]
    state.close()
