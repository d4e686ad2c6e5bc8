"""robots.txt, crawl-delay, per-host delay and connection bound, User-Agent — from the server's log."""

from __future__ import annotations

import time

import pytest

from .crawl_helpers import Site, article_page, list_page, make_profile

from xnews_gui.crawl import CrawlOptions, Crawler, MemorySink


def site_with(robots: str, n: int = 4, latency: float = 0.0) -> Site:
    def slow(title):
        status, headers, body = article_page(title)

        def answer(h):
            time.sleep(latency)
            data = body.encode()
            h.send_response(status)
            for k, v in headers.items():
                h.send_header(k, v)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        return answer if latency else (status, headers, body)

    routes = {"/": list_page([f"/a{i}" for i in range(n)] + ["/private/secret"]),
              "/robots.txt": (200, {"Content-Type": "text/plain"}, robots),
              "/private/secret": article_page("secret")}
    routes.update({f"/a{i}": slow(f"Bài {i}") for i in range(n)})
    return Site(routes)


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:])]


def too_close(times: list[float], delay: float, tolerance: float) -> list[float]:
    """Gaps between requests, as the server saw them, shorter than ``delay - tolerance``.

    The test server stamps a request when its thread gets to it: a server thread held up (the
    GIL, a busy machine) stamps that request late, which shortens the next gap without the
    crawler having sent the next request too early. A short gap right after a gap of more
    than twice the delay is that artefact, not impoliteness; any other short gap counts.
    """
    out = []
    spans = gaps(times)
    for i, gap in enumerate(spans):
        held_up = i > 0 and spans[i - 1] > 2 * delay
        if gap < delay - tolerance and not held_up:
            out.append(gap)
    return out


def test_robots_disallow_and_crawl_delay(tmp_path):
    with site_with("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.3\n") as site:
        sink = MemorySink()
        summary = Crawler(make_profile(site.url + "/", concurrency=4), sink, state_dir=tmp_path).run()
        assert "/private/secret" not in site.paths()
        assert summary["errors_by_kind"] == {"robots": 1}
        assert summary["articles"] == 4
        pages = site.times(lambda p: p != "/robots.txt")
        assert len(pages) == 5
        assert not too_close(pages, 0.3, 0.01), gaps(pages)


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


def test_per_host_delay(tmp_path):
    with site_with("") as site:
        profile = make_profile(site.url + "/", concurrency=4, delay_s=0.15)
        Crawler(profile, MemorySink(), state_dir=tmp_path).run()
        times = site.times()
        assert len(times) == 7  # robots, home, 5 articles
        assert not too_close(times, 0.15, 0.025), gaps(times)  # server-side clock: connection set-up jitter


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


def test_too_close_counts_short_gaps_but_not_a_held_up_server_stamp():
    assert too_close([0.0, 0.3, 0.6, 0.9], 0.3, 0.01) == []
    assert too_close([0.0, 0.3, 0.35, 0.65], 0.3, 0.01) == [pytest.approx(0.05)]  # a real early request
    assert too_close([0.0, 0.3, 2.0, 2.04, 2.33], 0.3, 0.01) == []  # the 2.0 stamp was late
