"""The crawl parses a clean UTF-8 list page from its fetched bytes (PageParser.list_page(..., utf8)):
the links it queues, their anchors and the relevance text are the ones the decoded text gives."""

from __future__ import annotations

import json


from tests import extract_corpus as corpus
from tests.conftest import shared_bench, shared_data
from xnews_gui.core.text.encoding import decode_html_utf8
from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl.options import CrawlOptions
from xnews_gui.crawl.parse import PageParser
from xnews_gui.crawl.request import Request


class _NoModel:
    present = False

    def get(self):
        return None


def _parser(profile: Profile, strategy: str) -> PageParser:
    return PageParser(profile, CrawlOptions(incremental=False), strategy, _NoModel(),
                      on_error=lambda *a: None)


def _pages():
    """(url, fetched bytes) of the simulator's list pages and of real pages."""
    articles, lists = corpus.simulator_cases()
    pages = [(url, html.encode("utf-8")) for _, html, url, _ in lists]
    real = sorted((corpus.SHARED / "data" / "readability-test-pages").glob("test-pages/*/source.html"))[:40]
    pages += [("http://example.test/a/b.htm", p.read_bytes()) for p in real]
    return pages


def test_a_list_page_parsed_from_its_bytes_gives_the_same_links():
    shared_bench("newsim.py"), shared_data("readability-test-pages")  # skip with the reason when absent
    pages = _pages()
    newsim = json.loads((corpus.REPO / "benchmarks" / "newsim_profile.json").read_text(encoding="utf-8"))
    broad = dict(newsim, links={"articles": {"kind": "css", "selector": "a[href]", "allow": [r"\.html?$"]},
                                "lists": {"kind": "xpath", "selector": "//a"}},
                 crawl=dict(newsim["crawl"], topic_keywords={"news": 1.0, "tin": 2.0}))
    compared = links = 0
    for profile_data, strategy in ((newsim, "bfs"), (broad, "best_first")):
        profile = Profile.from_dict(profile_data)
        for url, body in pages:
            text, _, utf8 = decode_html_utf8(body, "text/html")
            if utf8 is None:
                continue
            req = Request(url, "list", 1)
            from_text = _parser(profile, strategy).list_page(req, text, url)
            from_bytes = _parser(profile, strategy).list_page(req, text, url, utf8)
            assert from_bytes == from_text, url
            compared += 1
            links += len(from_text.articles) + len(from_text.lists)
    assert compared > 40 and links > 1000
