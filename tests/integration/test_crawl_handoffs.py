"""Hand-offs between the crawl's threads: when the parser is the bottleneck, a freed slot does not
wake a fetch thread for each page (each wake hands the interpreter lock over); the crawl still
keeps at most 2 * concurrency - 1 pages between their fetch and the end of their parsing."""

from __future__ import annotations

import threading
import time

from .crawl_helpers import Site, html, list_page, make_profile

from xnews_gui.crawl import CrawlOptions, Crawler, MemorySink
from xnews_gui.crawl.parse import PageParser


class _CountingCondition(threading.Condition):
    def __init__(self):
        super().__init__()
        self.woken = 0  # threads woken one by one

    def notify(self, n=1):
        self.woken += n
        super().notify(n)


def test_a_parse_bound_crawl_wakes_a_fetch_thread_for_several_pages(tmp_path, monkeypatch):
    articles, concurrency = 80, 8
    routes = {"/": list_page([f"/a{n}.htm" for n in range(articles)])}
    routes.update({f"/a{n}.htm": html(f"<h1 class='title'>Bài {n}</h1><div class='body'><p>Tin {n}.</p></div>")
                   for n in range(articles)})
    parsed, most_open = [], [0]
    original = PageParser.article_page

    with Site(routes) as site:
        def slow_parse(self, *args, **kwargs):  # the parser is the bottleneck
            time.sleep(0.004)
            most_open[0] = max(most_open[0], sum(p.startswith('/a') for p in site.paths()) - len(parsed))  # fetched, not parsed
            parsed.append(1)
            return original(self, *args, **kwargs)

        monkeypatch.setattr(PageParser, "article_page", slow_parse)
        crawler = Crawler(make_profile(site.url + "/", concurrency=concurrency), MemorySink(), state_dir=tmp_path,
                          options=CrawlOptions(fetch_images=False))
        crawler._cond = cond = _CountingCondition()
        summary = crawler.run()
    assert summary["status"] == "finished" and summary["articles"] == articles
    assert most_open[0] <= 2 * concurrency - 1
    assert cond.woken < articles // 2, cond.woken  # (a wake for each parsed page: >= articles)
