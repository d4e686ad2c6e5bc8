"""The persisted frontier and seen set, passes, and the adaptive revisit interval."""

from __future__ import annotations

import pytest

from xnews_gui.crawl.frontier import BreadthFirst, Request
from xnews_gui.crawl.revisit import change_rate, next_interval
from xnews_gui.crawl.state import DUPLICATE, KNOWN, NEW, CrawlState


def test_claim_resume_and_passes(tmp_path):
    path = tmp_path / "crawl" / "p.sqlite3"
    state = CrawlState(path)
    assert state.begin() == [] and state.pass_no == 1 and not state.resumed
    assert state.claim(Request("http://x/", "list")) == NEW
    assert state.claim(Request("http://x/a1", "article", 1)) == NEW
    assert state.claim(Request("http://x/a2", "article", 1)) == NEW
    assert state.claim(Request("http://x/a1", "article", 1)) == DUPLICATE
    state.done("http://x/")
    state.done("http://x/a1")
    state.close()  # as if killed after the last commit

    state = CrawlState(path)
    queued = state.begin()
    assert state.resumed and state.pass_no == 1
    assert [r.url for r in queued] == ["http://x/a2"]
    state.done("http://x/a2")
    state.finish_pass()
    state.close()

    state = CrawlState(path)
    assert state.begin() == [] and state.pass_no == 2 and not state.resumed
    assert state.claim(Request("http://x/", "list")) == NEW  # list pages are read again
    assert state.claim(Request("http://x/a1", "article", 1)) == KNOWN  # articles are not
    assert state.claim(Request("http://x/", "list")) == DUPLICATE
    state.close()


def test_failed_articles_are_retried_in_the_next_pass(tmp_path):
    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    state.claim(Request("http://x/a", "article"))
    state.done("http://x/a", ok=False)
    state.finish_pass()
    state.begin()
    assert state.claim(Request("http://x/a", "article")) == NEW
    state.close()


def test_uncommitted_work_is_redone_after_a_crash(tmp_path):
    path = tmp_path / "s.sqlite3"
    state = CrawlState(path, commit_every=10_000)
    state.begin()
    state.claim(Request("http://x/a", "article"))
    state.commit()
    state.done("http://x/a")  # not committed: the "crash" below loses it
    state._db.close()
    state = CrawlState(path)
    assert [r.url for r in state.begin()] == ["http://x/a"]
    state.close()


def test_scheduler_with_persistent_claim(tmp_path):
    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    sched = BreadthFirst(lambda r: state.claim(r) == NEW)
    assert sched.push(Request("http://x/1"))
    assert not sched.push(Request("http://x/1"))
    state.close()


def test_change_rate_and_interval():
    assert change_rate(0, 0, 100) is None
    # changed on every one of 4 visits an hour apart: about once an hour or more
    rate = change_rate(4, 4, 4 * 3600)
    assert rate * 3600 > 1
    fast = next_interval(4, 4, 4 * 3600, 3600, 60, 86400)
    slow = next_interval(4, 1, 4 * 3600, 3600, 60, 86400)
    assert 60 <= fast < slow <= 86400
    assert next_interval(3, 0, 3 * 3600, 3600, 60, 86400) == 7200  # unchanged: wait twice as long
    assert next_interval(50, 0, 50 * 3600, 80000, 60, 86400) == 86400  # bounded by max
    assert next_interval(50, 50, 50, 1, 60, 86400) == 60  # bounded by min


def test_list_visits_adapt_the_revisit_interval(tmp_path):
    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    t = 1_000_000.0
    assert state.list_visit("http://x/cat", "h0", 60, 86400, now=t) is False
    assert not state.due("http://x/cat", now=t + 30) and state.due("http://x/cat", now=t + 61)
    for i in range(1, 5):  # changes at every hourly visit
        assert state.list_visit("http://x/cat", f"h{i}", 60, 86400, now=t + 3600 * i) is True
    fast = state.revisit_info("http://x/cat")["interval"]
    state.list_visit("http://x/static", "same", 60, 86400, now=t)
    for i in range(1, 5):
        assert state.list_visit("http://x/static", "same", 60, 86400, now=t + 3600 * i) is False
    slow = state.revisit_info("http://x/static")["interval"]
    assert fast < 3600 < slow
    assert state.next_visit() == pytest.approx(t + 4 * 3600 + fast)
    state.close()
