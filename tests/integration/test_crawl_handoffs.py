"""Hand-offs between the crawl's threads: when the parser is the bottleneck, a freed slot does not
wake a fetch thread for each page (each wake hands the interpreter lock over); the crawl still
keeps at most 2 * concurrency - 1 pages between their fetch and the end of their parsing."""

from __future__ import annotations

import threading
import time

from .crawl_helpers import Site, answer, article_page, html, list_page, make_profile

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
        crawler.control.cond = cond = _CountingCondition()
        summary = crawler.run()
    assert summary["status"] == "finished" and summary["articles"] == articles
    assert most_open[0] <= 2 * concurrency - 1
    assert cond.woken < articles // 2, cond.woken  # (a wake for each parsed page: >= articles)



class _WaitLog(threading.Condition):
    """Logs each fetch thread's wait that ran out while there was work it could take: requests
    queued, slots free and no fetched page left for the parser (nothing else was going to wake it)."""

    def __init__(self):
        super().__init__()
        self.crawler = None
        self.watching = threading.Event()
        self.missed: list[tuple[int, int]] = []  # (requests queued, slots free)

    def wait(self, timeout=None):
        woken = super().wait(timeout)
        c = self.crawler
        w = c.workers
        if not woken and self.watching.is_set() and threading.current_thread() in w.threads:
            queued, free = len(c.scheduler), w.max_open - w.open
            if queued and free > 0 and not c.control.paused and w.parser_backlog() == 0:
                self.missed.append((queued, free))
        return woken


def test_a_waiting_fetch_thread_is_woken_for_new_links_while_the_others_wait_for_a_slow_server(tmp_path):
    """7 fetch threads wait for a slow server while the 8th, idle at an empty frontier, gets a list
    page's links to fetch: it is woken for them (not left to its wait's timeout, 0.25 s a time)."""
    held, more = [f"/a{n}.htm" for n in range(7)], [f"/b{n}.htm" for n in range(12)]
    cond, release, fetched = _WaitLog(), threading.Event(), []

    def slow(handler):  # answers once the list page's links are all fetched
        release.wait(60)
        answer(handler, article_page(handler.path))

    def fast(handler):
        fetched.append(handler.path)
        if len(fetched) == len(more):
            cond.watching.clear()
            release.set()
        answer(handler, article_page(handler.path))

    def watched_list(handler):  # from here on, the 7 others wait for the slow server
        cond.watching.set()
        answer(handler, list_page(more))

    routes = {"/": list_page(held, ["/more.htm"]), "/more.htm": watched_list}
    routes.update({p: slow for p in held})
    routes.update({p: fast for p in more})
    with Site(routes) as site:
        crawler = Crawler(make_profile(site.url + "/", concurrency=8), MemorySink(), state_dir=tmp_path,
                          options=CrawlOptions(fetch_images=False))
        crawler.control.cond, cond.crawler = cond, crawler
        summary = crawler.run()
    assert summary["status"] == "finished" and summary["articles"] == len(held) + len(more)
    assert cond.missed == [], cond.missed  # [(requests queued, slots free)] when a wait ran out


def test_the_start_page_queued_after_the_sitemaps_wakes_a_waiting_fetch_thread(tmp_path):
    """Links after sitemaps: the start page is queued when discovery ends, while the sitemap's
    articles still wait for a slow server; a waiting fetch thread is woken for it."""
    held, more = [f"/a{n}.htm" for n in range(3)], [f"/b{n}.htm" for n in range(6)]
    cond, release, fetched = _WaitLog(), threading.Event(), []

    def slow(handler):  # answers once the start page's links are all fetched
        cond.watching.set()
        release.wait(60)
        answer(handler, article_page(handler.path))

    def fast(handler):
        fetched.append(handler.path)
        if len(fetched) == len(more):
            cond.watching.clear()
            release.set()
        answer(handler, article_page(handler.path))

    routes = {"/robots.txt": (404, {}, ""), "/": list_page(more)}
    routes.update({p: slow for p in held})
    routes.update({p: fast for p in more})
    with Site(routes) as site:
        urls = "".join(f"<url><loc>{site.url}{p}</loc></url>" for p in held)
        site.routes["/sitemap.xml"] = (200, {"Content-Type": "application/xml"},
                                       f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>')
        profile = make_profile(site.url + "/", concurrency=8).with_(discovery=("sitemap", "links"))
        crawler = Crawler(profile, MemorySink(), state_dir=tmp_path, options=CrawlOptions(fetch_images=False))
        crawler.control.cond, cond.crawler = cond, crawler
        summary = crawler.run()
    assert summary["status"] == "finished" and summary["articles"] == len(held) + len(more)
    assert cond.missed == [], cond.missed  # [(requests queued, slots free)] when a wait ran out
