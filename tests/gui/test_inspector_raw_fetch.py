"""The inspector's raw-HTML check fetches as a crawl of the same settings does: one Fetcher,
one user agent (the user's, with the contact), redirects followed, non-HTML refused clearly."""

from __future__ import annotations

import pytest

from tests.integration.crawl_helpers import Site, article_page, list_page, make_profile
from xnews_gui.crawl import Crawler
from xnews_gui.crawl.sink import MemorySink
from xnews_gui.services.pages import PageError
from xnews_gui.ui.inspector.inspector import Inspector, _check_job
from xnews_gui.ui.settings import Preferences


@pytest.fixture
def own_agent():
    """The user's crawl settings name their own agent and a contact."""
    Preferences(user_agent="LibraryBot/3.1", contact="mailto:crawl@example.org").save()
    yield
    Preferences().save()


def _site() -> Site:
    return Site({
        "/": list_page(articles=["/moved"]),
        "/moved": (302, {"Location": "/a/1.htm"}, b""),
        "/a/1.htm": article_page("Tin nhanh"),
        "/data.json": (200, {"Content-Type": "application/json"}, b'{"title": "not a page"}'),
    })


def _agents(site: Site, path: str) -> set[str]:
    return {headers.get("User-Agent") for _, p, headers in site.log if p == path}


def test_raw_check_fetches_as_a_crawl_of_the_same_settings(qtbot, own_agent, tmp_path):
    inspector = Inspector()
    qtbot.addWidget(inspector)
    try:
        with _site() as site:
            html = inspector.cache.fetch(site.url + "/moved")
            assert "Tin nhanh" in html  # the redirect was followed
            assert inspector.cache.get(site.url + "/moved") == html
            inspected = _agents(site, "/moved") | _agents(site, "/a/1.htm")
            (_, _, headers), = [entry for entry in site.log if entry[1] == "/moved"]
            assert headers["Accept"].startswith("text/html") and headers["Accept-Encoding"] == "gzip, deflate"

            with pytest.raises(PageError, match=r"is not an HTML page \(not HTML: application/json\)"):
                inspector.cache.fetch(site.url + "/data.json")
            profile = make_profile(site.url + "/")
            _, _, _, _, error = _check_job(1, inspector.cache, profile, [], [], site.url + "/data.json", None)
            assert error.startswith("raw HTML not available: ") and "not an HTML page" in error

            site.log.clear()
            options = Preferences.load().crawl_options(concurrency=1, fetch_images=False, save_raw=False)
            summary = Crawler(profile, MemorySink(), state_dir=tmp_path / "crawl", options=options).run()
            assert summary["status"] == "finished"
            crawled = _agents(site, "/moved") | _agents(site, "/a/1.htm")
    finally:
        inspector.shutdown()
    assert inspected == crawled == {"LibraryBot/3.1; +mailto:crawl@example.org"}
    assert inspector.cache.closed
