"""A profile regex that backtracks without end costs a crawl thread its time limit, not the crawl."""

from __future__ import annotations

import time

from .crawl_helpers import Site, html, list_page

from xnews_gui.core.profile import patterns
from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl import Crawler, MemorySink


def test_a_backtracking_title_regex_fails_one_page_and_the_crawl_goes_on(tmp_path):
    trap = "a" * 20_000 + "b"
    routes = {
        "/": list_page(articles=["/good.htm", "/trap.htm"]),
        "/good.htm": html("<h1>aaa</h1>c<div class='body'><p>Nội dung.</p></div>"),
        "/trap.htm": html(f"<h1>{trap}</h1><div class='body'><p>Nội dung.</p></div>"),
    }
    with Site(routes) as site:
        profile = Profile.from_dict({
            "schema": 1, "name": "trap", "start_urls": [site.url + "/"], "allowed_domains": ["127.0.0.1"],
            "links": {"articles": {"kind": "css", "selector": "a.art"}},
            "fields": {"title": {"kind": "regex", "selector": r"<h1>((?:a|aa)+)</h1>c", "required": True},
                       "body": {"kind": "css", "selector": "div.body", "take": "html", "required": True}},
            "crawl": {"strategy": "bfs", "delay_s": 0.0, "concurrency": 2, "max_depth": 2},
        })
        sink = MemorySink()
        start = time.monotonic()
        Crawler(profile, sink, state_dir=tmp_path).run()
        took = time.monotonic() - start
    assert [a["article"].title for a in sink.articles] == ["aaa"]
    failures = dict(sink.failures)
    assert "gave up after" in failures[site.url + "/trap.htm"], failures
    assert took < 30 * patterns.TIME_LIMIT_S, took  # "no hang": the limit is CPU time, the machine is shared
