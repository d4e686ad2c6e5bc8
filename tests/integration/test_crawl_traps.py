"""Spider traps on a real local server: with no depth limit the crawl still ends, bounded, and says why."""

from __future__ import annotations

import re

import pytest

from .crawl_helpers import Site, html, make_profile

from xnews_gui.crawl import CrawlOptions, Crawler, MemorySink


class TrapSite(Site):
    """Answers any path: ``answer(path)`` gives the page's body."""

    def __init__(self, answer):
        super().__init__({})
        self.routes = _Everything(answer)


class _Everything(dict):
    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def get(self, path, default=None):
        if path == "/robots.txt":
            return 404, {"Content-Type": "text/plain"}, b""
        return html(self.answer(path))


def calendar(path: str) -> str:
    """/cal/2026/01/ links to the month before and after, for ever (no articles on it)."""
    m = re.match(r"/cal/(\d+)/(\d+)/", path)
    year, month = (int(m.group(1)), int(m.group(2))) if m else (2026, 1)
    def month_url(y, mo):
        y, mo = y + (mo - 1) // 12, (mo - 1) % 12 + 1
        return f"/cal/{y:04d}/{mo:02d}/"
    return (f"<a class='list' href='{month_url(year, month - 1)}'>prev</a>"
            f"<a class='list' href='{month_url(year, month + 1)}'>next</a>")


def _run(site, **options):
    events = []
    profile = make_profile(site.url + "/cal/2026/01/", concurrency=4, max_depth=0)
    summary = Crawler(profile, MemorySink(), state_dir=site.tmp, options=CrawlOptions(**options),
                      on_event=events.append).run()
    return summary, [e.data for e in events if e.kind == "log" and e.data.get("warning")]


@pytest.mark.slow
def test_an_endless_calendar_ends_bounded_with_a_warning(tmp_path):
    with TrapSite(calendar) as site:
        site.tmp = tmp_path
        summary, warnings = _run(site, fetch_images=False)
    assert summary["status"] == "finished"
    # the default guard: at most 500 list pages whose URLs differ only in their numbers
    assert 500 <= summary["pages"] <= 502
    assert len(site.paths()) <= 503  # robots.txt + the pages: nothing fetched beyond the bound
    assert len(warnings) == 1 and "spider trap" in warnings[0]["message"]
    assert summary["warnings"] == [w["message"].removeprefix("WARNING: ") for w in warnings]
    assert summary["trap_refused"]["pattern"] >= 1


def test_query_and_path_traps_are_cut(tmp_path):
    def answer(path: str) -> str:
        if path.startswith("/list"):  # a new session id in every link
            n = int(re.search(r"page=(\d+)", path).group(1)) if "page=" in path else 0
            return f"<a class='list' href='/list?page={n + 1}&sid={n * 7919 % 1000}'>next</a>"
        # a relative link that nests the path into itself: /cal/x/ -> /cal/x/x/ -> ...
        return "<a class='list' href='x/'>again</a><a class='list' href='/list?page=0'>list</a>"

    with TrapSite(answer) as site:
        site.tmp = tmp_path
        summary, warnings = _run(site, fetch_images=False, max_query_variants=20)
    assert summary["status"] == "finished"
    refused = summary["trap_refused"]
    assert refused.get("query_variants", 0) >= 1 and refused.get("path_repeats", 0) >= 1
    paths = site.paths()
    assert sum(p.startswith("/list") for p in paths) == 20
    assert max(p.count("x/") for p in paths) == 2  # /cal/2026/01/x/x/ is the last; three times is refused
    assert {("query" in w["message"]) or ("repeat" in w["message"]) for w in warnings} == {True}
