"""A crawl whose start pages lead nowhere is refused with the reason (issue 10: 'Finished', 1 page, 0 articles)."""

from __future__ import annotations

from xnews_gui.crawl import CrawlOptions, Crawler
from xnews_gui.crawl.sink import MemorySink

from .crawl_helpers import Site, article_page, html, list_page, make_profile


def _crawl(profile, tmp_path):
    return Crawler(profile, MemorySink(), state_dir=tmp_path / "crawl",
                   options=CrawlOptions(fetch_images=False, save_raw=False)).run()


def test_an_article_as_start_page_is_refused_with_the_reason(tmp_path):
    with Site({"/a/1.htm": article_page("Một bài")}) as site:
        summary = _crawl(make_profile(site.url + "/a/1.htm"), tmp_path)
    assert summary["status"] == "refused" and summary["pages"] == 1 and summary["articles"] == 0
    assert "is an article, not a list page" in summary["refused_reason"]


def test_a_start_page_without_followed_links_is_refused(tmp_path):
    with Site({"/": html("<a href='/x/1.htm'>a link the rules do not select</a>")}) as site:
        summary = _crawl(make_profile(site.url + "/"), tmp_path)
    assert summary["status"] == "refused"
    assert "has no link the profile's link rules follow" in summary["refused_reason"]


def test_a_start_page_with_links_is_not_refused(tmp_path):
    with Site({"/": list_page(["/a/1.htm"]), "/a/1.htm": article_page("Một bài")}) as site:
        summary = _crawl(make_profile(site.url + "/"), tmp_path)
    assert summary["status"] == "finished" and summary["articles"] == 1 and "refused_reason" not in summary
