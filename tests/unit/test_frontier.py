"""Scheduler strategies on small known link graphs (no network)."""

from __future__ import annotations

import pytest

from xnews_gui.crawl.frontier import (BestFirst, BreadthFirst, ByImportance, ByPageRank, DepthFirst, RandomOrder,
                                      make_scheduler)
from xnews_gui.crawl.request import Request
from xnews_gui.crawl.pagerank import pagerank
from xnews_gui.crawl.relevance import KeywordRelevance, fold, importance

# the textbook example: A links to B, C, D; B to E, F; C to F, G; D to G; E, F, G to H
GRAPH = {"A": ["B", "C", "D"], "B": ["E", "F"], "C": ["F", "G"], "D": ["G"], "E": ["H"], "F": ["H"],
         "G": ["H"], "H": []}


def crawl_order(scheduler, graph=GRAPH, start="A", score=lambda parent: 0.0):
    scheduler.push(Request(start, depth=0))
    order = []
    while (req := scheduler.pop()) is not None:
        order.append(req.url)
        for child in graph[req.url]:
            scheduler.push(Request(child, depth=req.depth + 1, referrer=req.url, priority=score(req.url)))
        scheduler.page_done(req.url)
    return order


def test_push_returns_false_for_a_duplicate():
    for strategy in ("bfs", "dfs", "random", "best_first", "importance", "pagerank", "focused"):
        s = make_scheduler(strategy, seed=1)
        assert s.push(Request("http://x/a")) is True
        assert s.push(Request("http://x/a")) is False
        assert len(s) == 1
        assert s.pop().url == "http://x/a"
        assert s.pop() is None
        assert s.push(Request("http://x/a")) is False  # seen, even after it left the queue


def test_breadth_first():
    assert crawl_order(BreadthFirst()) == list("ABCDEFGH")


def test_depth_first_is_a_preorder():
    assert crawl_order(DepthFirst()) == list("ABEHFCGD")


def test_random_is_seeded_and_complete():
    a, b = crawl_order(RandomOrder(seed=3)), crawl_order(RandomOrder(seed=3))
    assert a == b and sorted(a) == list("ABCDEFGH") and a[0] == "A"
    orders = {tuple(crawl_order(RandomOrder(seed=s))) for s in range(10)}
    assert len(orders) > 1


def test_naive_best_first_follows_the_most_relevant_parent():
    relevance = {"A": 0.1, "B": 0.1, "C": 0.9, "D": 0.5, "E": 0, "F": 0, "G": 0, "H": 0}
    # G, found on the relevant C, jumps ahead of D and of B's children (F was found on B first)
    order = crawl_order(BestFirst(), score=lambda parent: relevance[parent])
    assert order == list("ABCGDEFH")


def test_importance_prefers_in_links_and_relevant_anchors():
    s = ByImportance(keywords={"bóng đá": 1.0})
    s.push(Request("http://x/", depth=0))
    assert s.pop().url == "http://x/"
    for i in range(3):  # P is linked from three pages, Q from one
        s.push(Request("http://x/p", depth=1, referrer=f"http://x/{i}"))
    s.push(Request("http://x/q", depth=1, referrer="http://x/0"))
    s.push(Request("http://x/r", depth=1, referrer="http://x/0", anchor="Tin Bóng Đá hôm nay"))
    s.push(Request("http://x/deep", depth=5, referrer="http://x/0"))
    assert [s.pop().url for _ in range(4)] == ["http://x/r", "http://x/p", "http://x/q", "http://x/deep"]


def test_importance_formula():
    assert importance(0, 0, 0) == pytest.approx(0.2)
    assert importance(1, 1.0, 1, weights=(1, 1, 1)) == pytest.approx(0.5 + 1 + 0.5)


def test_pagerank_order_prefers_much_linked_pages():
    graph = {"S": ["a", "b", "c"], "a": ["hub", "x"], "b": ["hub", "y"], "c": ["hub", "z"],
             "hub": [], "x": [], "y": [], "z": []}
    order = crawl_order(ByPageRank(), graph, start="S")
    assert order[:2] == ["S", "a"]
    assert order.index("hub") < min(order.index(p) for p in "xyz")
    assert sorted(order) == sorted(graph)
    bfs = crawl_order(BreadthFirst(), graph, start="S")
    assert bfs.index("hub") > order.index("hub")


def test_pagerank_values():
    ranks = pagerank({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    assert sum(ranks.values()) == pytest.approx(1.0)
    assert all(r == pytest.approx(1 / 3) for r in ranks.values())
    ranks = pagerank({"a": {"hub"}, "b": {"hub"}, "c": {"hub"}}, nodes={"d"})
    assert max(ranks, key=ranks.get) == "hub"
    assert sum(ranks.values()) == pytest.approx(1.0)


def test_keyword_relevance_ignores_case_and_diacritics():
    rel = KeywordRelevance({"bóng đá": 2, "World Cup": 1, "quảng cáo": -1})
    assert fold("Bóng ĐÁ!") == " bong da "
    assert rel("tin bong-da va world cup") == pytest.approx(1.0)
    assert rel("Bóng đá Việt Nam") == pytest.approx(2 / 3)
    assert rel("bóng đá, quảng cáo") == pytest.approx(1 / 3)
    assert rel("thời tiết") == 0.0
    assert not KeywordRelevance({})


def test_unknown_strategy():
    with pytest.raises(ValueError):
        make_scheduler("nope")
