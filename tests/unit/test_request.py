"""The crawl's one Request type: whole through to_dict/from_dict, the desktop crawl state and the
Scrapy side (the Redis frontier's JSON), for every kind and flag."""

from __future__ import annotations

import itertools
import json

import pytest

from xnews_gui.crawl.request import FLAGS, KINDS, Request
from xnews_gui.crawl.state import CrawlState


def every_request() -> list[Request]:
    out = []
    flag_sets = [frozenset(c) for n in range(len(FLAGS) + 1) for c in itertools.combinations(FLAGS, n)]
    for i, (kind, flags) in enumerate(itertools.product(KINDS, flag_sets)):
        out.append(Request(f"http://site.example/{kind}/{i}.htm", kind, depth=i % 4, referrer="http://site.example/",
                           anchor="Tin Bóng Đá" if i % 2 else "", priority=i / 7, profile="báo-mới",
                           flags=flags, tries=i % 3, not_before=1_700_000_000.5 + i if i % 5 == 0 else 0.0,
                           headers={"If-None-Match": 'W/"abc"'} if i % 3 == 0 else {},
                           extra={"redirect_times": 1, "redirect_urls": ["http://a/"], "seen_etag": 'W/"x"'} if i % 4 == 0 else {}))
    return out


def test_every_kind_and_flag_comes_back_whole_through_json():
    requests = every_request()
    assert {r.kind for r in requests} == set(KINDS) and set().union(*(r.flags for r in requests)) == set(FLAGS)
    for req in requests:
        again = Request.from_dict(json.loads(json.dumps(req.to_dict())))
        assert again == req


@pytest.mark.parametrize("data", [
    None, [], {}, {"url": ""}, {"url": 5}, {"url": "http://x/", "kind": "page"}, {"url": "http://x/", "flags": ["run"]},
    {"url": "http://x/", "flags": "links"}, {"url": "http://x/", "depth": -1}, {"url": "http://x/", "depth": "1"},
    {"url": "http://x/", "tries": True}, {"url": "http://x/", "priority": float("nan")},
    {"url": "http://x/", "headers": {"a": 1}}, {"url": "http://x/", "extra": []}, {"url": "http://x/" + "a" * 70000},
])
def test_what_is_not_a_request_is_refused(data):
    with pytest.raises(ValueError):
        Request.from_dict(data)


def test_a_retry_is_the_same_request_one_try_further_and_later():
    req = Request("http://x/a", "sitemap", 2, flags=frozenset({"dont_filter"}), headers={"If-Modified-Since": "x"})
    later = req.retry(30.0, now=1000.0)
    assert (later.tries, later.not_before) == (1, 1030.0)
    assert Request.from_dict(later.to_dict()) == later and req.tries == 0
    assert later.headers == req.headers and later.headers is not req.headers


def test_the_desktop_crawl_state_keeps_every_field(tmp_path):
    state = CrawlState(tmp_path / "p.sqlite3")
    try:
        state.begin()
        requests = every_request()
        for seq, req in enumerate(requests, 1):
            req.seq = seq
            assert state.claim(req, 0.0) == "new"
        back = [r for _, _, r in state.queued(len(requests) + 5)]
    finally:
        state.close()
    assert back == requests


def test_the_scrapy_side_and_the_redis_json_keep_every_field():
    pytest.importorskip("scrapy", reason="Scrapy is not installed (pip install -e '.[scale]')")
    from xnews_gui.scale.frontier import LEASE, encode
    from xnews_gui.scale.spider import as_request, to_scrapy

    for req in every_request():
        sent = to_scrapy(req, "bfs", None, None)
        assert sent.dont_filter == ("dont_filter" in req.flags)
        assert as_request(sent) == req
        again = Request.from_dict(json.loads(encode(sent)))
        assert again == req
        back = to_scrapy(again, "bfs", None, None)
        back.meta[LEASE] = "7"
        assert as_request(back) == req
