"""robots.txt, crawl-delay, per-host delay and connection bound, User-Agent — from the server's log."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest

from .crawl_helpers import Site, answer, article_page, list_page, make_profile

from xnews_gui.crawl import CrawlOptions, Crawler, MemorySink
from xnews_gui.crawl.fetcher import Fetcher


def site_with(robots: str, n: int = 4, latency: float = 0.0) -> Site:
    def slow(title):
        route = article_page(title)

        def late(h):
            time.sleep(latency)
            answer(h, route)
        return late if latency else route

    routes = {"/": list_page([f"/a{i}" for i in range(n)] + ["/private/secret"]),
              "/robots.txt": (200, {"Content-Type": "text/plain"}, robots),
              "/private/secret": article_page("secret")}
    routes.update({f"/a{i}": slow(f"Bài {i}") for i in range(n)})
    return Site(routes)


@pytest.fixture
def sent(monkeypatch) -> list[tuple[float, str]]:
    """(monotonic time, path) of each request as libcurl reports it written to its socket.

    The politeness gate counts a host's delay from that same report, so the gaps between these
    stamps are never shorter than the delay however late a thread runs (a busy machine only makes
    them longer): unlike the server's stamps, which a server thread held up (the GIL, the
    scheduler) takes late. A short gap here is a request the crawler sent early."""
    stamps: list[tuple[float, str]] = []
    real = Fetcher._exchange

    def _exchange(self, url, accept, sent=None, *more):
        path = urlsplit(url).path or "/"

        def written():
            stamps.append((time.monotonic(), path))
            if sent is not None:
                sent()
        return real(self, url, accept, written, *more)

    monkeypatch.setattr(Fetcher, "_exchange", _exchange)
    return stamps


def early(stamps: list[tuple[float, str]], delay: float) -> list[float]:
    """Gaps between requests the crawler sent that are shorter than ``delay`` (1 ms of clock slack)."""
    return [g for g in gaps([t for t, _ in stamps]) if g < delay - 0.001]


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:])]


def test_robots_disallow_and_crawl_delay(tmp_path, sent):
    with site_with("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.3\n") as site:
        sink = MemorySink()
        summary = Crawler(make_profile(site.url + "/", concurrency=4), sink, state_dir=tmp_path).run()
        assert "/private/secret" not in site.paths()
        assert summary["errors_by_kind"] == {"robots": 1}
        assert summary["articles"] == 4
        pages = site.times(lambda p: p != "/robots.txt")
        assert len(pages) == 5
        requests = [(t, path) for t, path in sent if path != "/robots.txt"]
        assert sorted(path for _, path in requests) == sorted(p for p in site.paths() if p != "/robots.txt")
        assert not early(requests, 0.3), gaps([t for t, _ in requests])


def test_robots_for_our_agent(tmp_path):
    with site_with("User-agent: Googlebot\nDisallow:\n\nUser-agent: XNews\nDisallow: /\n") as site:
        summary = Crawler(make_profile(site.url + "/"), MemorySink(), state_dir=tmp_path).run()
        assert site.paths() == ["/robots.txt"]
        assert summary["errors_by_kind"] == {"robots": 1} and summary["pages"] == 0


def test_robots_can_be_ignored_on_request(tmp_path):
    with site_with("User-agent: *\nDisallow: /\n") as site:
        options = CrawlOptions(obey_robots=False)
        summary = Crawler(make_profile(site.url + "/"), MemorySink(), state_dir=tmp_path, options=options).run()
        assert "/robots.txt" not in site.paths() and summary["articles"] == 5


def test_per_host_delay(tmp_path, sent):
    with site_with("") as site:
        profile = make_profile(site.url + "/", concurrency=4, delay_s=0.15)
        Crawler(profile, MemorySink(), state_dir=tmp_path).run()
        assert len(site.times()) == 7  # robots, home, 5 articles
        assert sorted(path for _, path in sent) == sorted(site.paths())  # the stamps are those requests
        assert not early(sent, 0.15), gaps([t for t, _ in sent])


def test_connections_per_host_are_bounded(tmp_path):
    with site_with("", n=8, latency=0.15) as site:
        options = CrawlOptions(concurrency=6, per_host=2)
        summary = Crawler(make_profile(site.url + "/"), MemorySink(), state_dir=tmp_path, options=options).run()
        assert summary["articles"] == 9
        assert site.max_active == 2


def test_honest_user_agent_with_contact(tmp_path):
    with site_with("") as site:
        options = CrawlOptions(contact="mailto:me@example.org")
        Crawler(make_profile(site.url + "/"), MemorySink(), state_dir=tmp_path, options=options).run()
        agents = {headers.get("User-Agent") for _, _, headers in site.log}
        assert len(agents) == 1
        agent = agents.pop()
        assert agent.startswith("XNews/") and "mailto:me@example.org" in agent


def test_early_counts_only_gaps_shorter_than_the_delay():
    assert early([(0.0, "/"), (0.3, "/a"), (0.6005, "/b")], 0.3) == []
    assert early([(0.0, "/"), (0.3, "/a"), (0.55, "/b")], 0.3) == [pytest.approx(0.25)]

