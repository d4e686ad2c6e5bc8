"""Each strategy's fetch order on a small known graph, read from the server's request log."""

from __future__ import annotations

import pytest
from .crawl_helpers import Site, list_page, make_profile

from xnews_gui.crawl import CrawlOptions, Crawler, MemorySink
from xnews_gui.crawl.frontier import ByImportance, ByPageRank
from xnews_gui.crawl.request import Request

GRAPH = {"A": "BCD", "B": "EF", "C": "FG", "D": "G", "E": "H", "F": "H", "G": "H", "H": ""}
WORDS = {"C": "bóng đá bóng đá", "G": "bóng đá"}  # topic text on some pages


def graph_site() -> Site:
    routes = {f"/{n}": list_page(lists=[f"/{c}" for c in kids], extra=f"<p>{WORDS.get(n, 'thời tiết')}</p>")
              for n, kids in GRAPH.items()}
    return Site(routes)


def crawl(strategy: str, tmp_path, **settings) -> list[str]:
    with graph_site() as site:
        profile = make_profile(site.url + "/A", strategy=strategy, topic_keywords={"bóng đá": 1.0}, **settings)
        summary = Crawler(profile, MemorySink(), state_dir=tmp_path, options=CrawlOptions(seed=3)).run()
        assert summary["status"] == "finished"
        return [p.strip("/") for p in site.paths() if p != "/robots.txt"]


@pytest.mark.parametrize("strategy, expected", [
    ("bfs", "ABCDEFGH"),
    ("dfs", "ABEHFCGD"),
    ("best_first", "ABCGHDEF"),  # G (found on the on-topic C), then H (found on G) before D
])
def test_order(strategy, expected, tmp_path):
    assert "".join(crawl(strategy, tmp_path)) == expected


def test_random_order_is_seeded(tmp_path):
    a = crawl("random", tmp_path / "1")
    b = crawl("random", tmp_path / "2")
    assert a == b and sorted(a) == list("ABCDEFGH") and a[0] == "A"


def simulated(scheduler) -> str:
    """The order the scheduler alone gives (the engine at concurrency 1 must fetch in it)."""
    scheduler.push(Request("A"))
    order = ""
    while (req := scheduler.pop()) is not None:
        order += req.url
        for child in GRAPH[req.url]:
            scheduler.push(Request(child, "list", req.depth + 1, req.url, f"/{child}"))
        scheduler.page_done(req.url)
    return order


def test_importance_order(tmp_path):
    order = "".join(crawl("importance", tmp_path))
    assert order == simulated(ByImportance(keywords={"bóng đá": 1.0}))
    # F and G have two in-links each, E one: they come before E at the same depth
    assert order == "ABCDFGHE"


def test_pagerank_order(tmp_path):
    order = "".join(crawl("pagerank", tmp_path))
    assert order == simulated(ByPageRank())
    assert sorted(order) == list("ABCDEFGH") and order[0] == "A"


def test_focused_does_not_expand_off_topic_pages(tmp_path):
    order = "".join(crawl("focused", tmp_path, relevance_threshold=0.6))
    # B, D and F are off topic: their links are not followed (E never); C and G are, first
    assert order == "ABCFGHD"



class _SportsPages:
    """A stand-in topic model: a page whose text names sports teams and athletes again and again is about sport."""

    WORDS = ("Đội tuyển", "câu lạc bộ", "Câu lạc bộ", "Huấn luyện viên", "tay vợt", "U23", "Vận động viên",
             "vận động viên", "cầu thủ", "thủ môn", "trận đấu")

    def proba(self, text):
        sport = 0.9 if sum(text.count(w) for w in self.WORDS) >= 6 else 0.1
        return {"The thao": sport, "Kinh doanh": 1 - sport}

    def predict(self, text):
        probs = self.proba(text)
        label = max(probs, key=probs.get)
        return label, probs[label]


def test_focused_crawl_follows_the_profiles_focus_topics(tmp_path):
    import json

    from xnews_gui.core.profile.profile import Profile
    from xnews_gui.crawl.engine import Crawler
    from xnews_gui.crawl.sink import MemorySink
    from xnews_gui.demo import DemoServer

    from ..conftest import PROFILES

    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    stored = {}
    with DemoServer(port=0) as server:
        data["start_urls"] = [server.url + "the-thao/"]
        for topic in ("The thao", "Kinh doanh"):
            data["crawl"].update(strategy="focused", focus_topics=[topic], relevance_threshold=0.6)
            sink = MemorySink()
            Crawler(Profile.from_dict(data), sink, state_dir=tmp_path / topic, classifier=_SportsPages()).run()
            stored[topic] = {a["article"].url for a in sink.articles}
    # sport: the sports list pages are expanded (pagination followed), other sections are not
    assert len(stored["The thao"]) >= 10
    assert all("/the-thao/" in u for u in stored["The thao"])
    # business: the seed is always read, but the sports pages it leads to are not relevant, so sports
    # pagination stops at once while the other sections' list pages are expanded
    sports = [u for u in stored["Kinh doanh"] if "/the-thao/" in u]
    assert len(sports) <= 5
    assert len(stored["Kinh doanh"]) - len(sports) >= 40
