"""The coverage check follows the link rules the way the crawl does and says what looks wrong."""

from __future__ import annotations

import requests

from xnews_gui.core.induction.coverage import check_coverage
from xnews_gui.core.profile.profile import LinkRule
from xnews_gui.crawl import Crawler
from xnews_gui.crawl.sink import MemorySink


def _fetch(url: str) -> str:
    resp = requests.get(url, timeout=10)
    resp.raise_for_status()
    return resp.text


def test_the_demo_profile_reaches_every_article_the_crawl_stores(demo_server, demo_profile, tmp_path):
    report = check_coverage(demo_profile, _fetch, delay_s=0)
    sink = MemorySink()
    summary = Crawler(demo_profile, sink, state_dir=tmp_path / "crawl").run()
    stored = {a["article"].url for a in sink.articles}
    assert summary["articles"] == len(stored) > 60
    assert report.articles == stored  # the same links as the crawl, not merely as many
    assert report.list_pages == summary["list_pages"] and report.unread_lists == 0
    assert report.summary() == f"reaches {report.list_pages} list pages and {len(stored)} article links"
    assert report.warning() == ""


def test_home_page_article_links_alone_are_flagged(demo_server, demo_profile):
    """The newcomer's trap of issue 10: article links picked on the home page, no section links."""
    home_only = demo_profile.with_(lists=None)
    report = check_coverage(home_only, _fetch, delay_s=0)
    assert report.list_pages == 1 and 0 < report.article_links < 10
    assert "Section links or Next page" in report.warning()


def test_a_start_page_that_is_an_article_is_named(demo_server, demo_profile):
    article = next(u for u in check_coverage(demo_profile.with_(lists=None), _fetch, delay_s=0).articles)
    report = check_coverage(demo_profile.with_(start_urls=(article,)), _fetch, delay_s=0)
    assert report.start_is_article and "start page is an article" in report.warning()


def test_a_start_page_listing_sections_only_is_not_called_an_article(demo_server, demo_profile):
    """A directory listing (or a site map) that links to section pages only: its text made it read as an
    article, though its address is not an article's and the sections it links to reach every article."""
    from xnews_gui.core.extraction.links import page_links

    start = demo_server.url.rstrip("/") + "/sections/"
    _, sections = page_links(demo_profile, _fetch(demo_server.url), demo_server.url)
    # a page the profile's rules read as an article all the same (a heading, a block of text)
    listing = ('<html><head><title>All sections</title></head><body><h1 class="article-title">All sections</h1>'
               '<div class="article-body"><p>' + "Every section of the site, one link each, as the site map lists "
               "them. " * 8 + '</p></div><nav class="main-nav">' + "".join(f'<p><a href="{u}">{u}</a></p>' for u in sections)
               + "</nav></body></html>")

    def fetch(url: str) -> str:
        return listing if url == start else _fetch(url)

    profile = demo_profile.with_(start_urls=(start,))
    assert sections and not demo_profile.articles.accepts(start)
    report = check_coverage(profile, fetch, delay_s=0)
    assert len(report.articles) > 60 and not report.start_is_article, report.warning()


def test_a_too_narrow_article_rule_is_flagged_and_limits_hold(demo_server, demo_profile):
    narrow = demo_profile.with_(articles=LinkRule(kind="css", selector=".list-news .item-news:first-child h3 a",
                                                  allow=demo_profile.articles.allow))
    report = check_coverage(narrow, _fetch, delay_s=0)
    assert "more article-like links than the rules select" in report.warning()
    small = check_coverage(demo_profile, _fetch, delay_s=0, max_pages=2)
    assert small.list_pages == 2 and small.unread_lists > 0 and "not checked" in small.summary()
    slept = []
    check_coverage(demo_profile, _fetch, delay_s=0.25, max_pages=3, sleep=slept.append)
    assert slept == [0.25, 0.25]  # a pause between requests, none before the first
