"""The inspector's preview follows the links the crawl follows: same scope, same canonical URLs, same order."""

from __future__ import annotations

from xnews_gui.core.extraction.links import page_links
from xnews_gui.core.profile.profile import LinkRule
from xnews_gui.crawl import CrawlOptions, Crawler
from xnews_gui.crawl.sink import MemorySink
from xnews_gui.ui.inspector.sample import build_preview
from xnews_gui.ui.inspector.fetch import PageCache

from .crawl_helpers import Site, article_page, html, make_profile


def _site() -> Site:
    site = Site({})
    for n in range(1, 8):
        site.routes[f"/a/{n}.htm"] = article_page(f"Bài {n}")
    site.routes["/a/3.htm?a=1&b=2"] = article_page("Bài 3 (query)")
    site.routes["/about.htm"] = article_page("About")
    return site


def _list_page(port: int) -> tuple:
    links = [
        "/a/1.htm",                                     # relative to the host
        "../a/2.htm#comments",                          # relative to the page, with a fragment
        f"http://127.0.0.1:{port}/a/3.htm?b=2&a=1",     # absolute, query in another order
        f"http://localhost:{port}/a/4.htm",             # the same server under another name: out of scope
        "javascript:void(0)",
        "/a/2.htm",                                     # a duplicate once canonical
        "/about.htm",                                   # not an article URL (allow pattern)
        f"HTTP://127.0.0.1:{port}/a/5.htm",             # upper-case scheme
        "/a/6.htm",
        "/" + "x" * 2100 + "/7.htm",                    # longer than the crawl's URL cap
    ]
    return html("".join(f"<a class='art' href='{h}'>link</a>" for h in links))


def test_preview_article_list_equals_what_the_crawl_fetches(tmp_path):
    with _site() as site:
        port = site.httpd.server_address[1]
        site.routes["/list/"] = _list_page(port)
        list_url = site.url + "/list/"
        profile = make_profile(list_url)
        profile = profile.with_(articles=LinkRule(kind="css", selector="a.art", allow=(r"/a/\d+\.htm",)), lists=None)

        cache = PageCache()
        try:
            rows, found = build_preview(profile, list_url, cache.fetch, limit=100)
        finally:
            cache.close()
        previewed = [row.url for row in rows]
        assert found == len(previewed)
        assert all(row.cells["title"].state == "ok" for row in rows)
        base = site.url
        assert previewed == [f"{base}/a/1.htm", f"{base}/a/2.htm", f"{base}/a/3.htm?a=1&b=2",
                             f"{base}/a/5.htm", f"{base}/a/6.htm"]

        site.log.clear()
        sink = MemorySink()
        summary = Crawler(profile, sink, state_dir=tmp_path / "crawl",
                          options=CrawlOptions(concurrency=1, fetch_images=False, save_raw=False)).run()
        assert summary["status"] == "finished"
        fetched = [p["url"] for p in sink.pages if p["kind"] == "article"]
        assert fetched == previewed  # same pages, same order (one worker, breadth first)
        assert sorted(a["article"].url for a in sink.articles) == sorted(previewed)
        assert not any("localhost" in p or "about" in p for p in site.paths())


def test_page_links_splits_articles_from_list_pages_like_the_crawl():
    profile = make_profile("http://127.0.0.1:9/")
    page = ("<a class='art' href='/a/1.htm'>1</a><a class='list' href='/a/1.htm'>1 again</a>"
            "<a class='list' href='/page-2/'>next</a><a class='list' href='/'>home</a>"
            "<a class='list' href='http://elsewhere.test/page-3/'>off site</a>")
    articles, lists = page_links(profile, f"<html><body>{page}</body></html>", "http://127.0.0.1:9/")
    assert articles == ["http://127.0.0.1:9/a/1.htm"]
    assert lists == ["http://127.0.0.1:9/page-2/"]  # not the article, not the page itself, not off site
