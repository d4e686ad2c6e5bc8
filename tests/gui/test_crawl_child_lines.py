"""The crawl session against a child that writes what it should not: a "failed" whose data is no object
raised in the Qt thread after the process was let go, so the card stayed "Running" for ever and Stop,
Start and the schedule did nothing; a bad "log" dropped the articles read with it."""

from __future__ import annotations

import json
import sys

from tests.integration.crawl_helpers import make_profile
from xnews_gui.crawl import CrawlOptions
from xnews_gui.ui import crawl_session


def scripted(monkeypatch, *messages) -> None:
    lines = "".join(json.dumps(m) + "\\n" for m in messages)
    code = f"import sys, time; sys.stdin.readline(); sys.stdout.write({lines!r}.replace('\\\\n', chr(10))); " \
           "sys.stdout.flush(); time.sleep(0.3)"
    monkeypatch.setattr(crawl_session, "child_command", lambda module=None: (sys.executable, ["-c", code], {}))
    monkeypatch.setattr(crawl_session, "skip_hidden_topics", lambda: False)


def test_a_failed_message_of_the_wrong_shape_still_ends_the_crawl(qtbot, store, monkeypatch):
    scripted(monkeypatch, {"kind": "state", "data": "running"}, {"kind": "failed", "data": "boom"})
    session = crawl_session.CrawlSession(make_profile("http://127.0.0.1:1/"), store, CrawlOptions())
    with qtbot.waitSignal(session.finished, timeout=20_000):
        session.start()
    assert session.state == "failed" and not session.is_active()


def test_a_bad_log_line_does_not_drop_the_articles_read_with_it(qtbot, store, monkeypatch):
    articles = [{"kind": "article", "data": {"id": i, "url": f"http://a/{i}", "title": f"T{i}"}} for i in range(5)]
    scripted(monkeypatch, {"kind": "state", "data": "running"}, *articles, {"kind": "log", "data": "x"},
             {"kind": "done", "data": {"status": "finished", "articles": 5}})
    session = crawl_session.CrawlSession(make_profile("http://127.0.0.1:1/"), store, CrawlOptions())
    shown = []
    session.articlesStored.connect(shown.extend)
    with qtbot.waitSignal(session.finished, timeout=20_000):
        session.start()
    assert [a["id"] for a in shown] == [0, 1, 2, 3, 4] and session.state == "finished"


def test_a_child_that_dies_after_its_summary_ends_failed_with_why(qtbot, store, monkeypatch):
    """The engine's summary ("finished") came, then the process died before "done": the card said Failed
    while the summary it kept said finished."""
    scripted(monkeypatch, {"kind": "state", "data": "running"},
             {"kind": "finished", "data": {"status": "finished", "articles": 3, "pages": 4}})
    session = crawl_session.CrawlSession(make_profile("http://127.0.0.1:1/"), store, CrawlOptions())
    with qtbot.waitSignal(session.finished, timeout=20_000) as ended:
        session.start()
    summary = ended.args[0]
    assert session.state == "failed" and summary["status"] == "failed" and summary["articles"] == 3
    assert "without a summary" in summary["failed_reason"]
