"""The persisted frontier and seen set, passes, and the adaptive revisit interval."""

from __future__ import annotations

import pytest

from xnews_gui.crawl.frontier import BreadthFirst
from xnews_gui.crawl.request import Request
from xnews_gui.crawl.revisit import change_rate, next_interval
from xnews_gui.crawl.state import DUPLICATE, KNOWN, NEW, CrawlState


def test_claim_resume_and_passes(tmp_path):
    path = tmp_path / "crawl" / "p.sqlite3"
    state = CrawlState(path)
    assert state.begin() == [] and state.pass_no == 1 and not state.resumed
    assert state.claim(Request("http://x/", "list")) == NEW
    assert state.claim(Request("http://x/a1", "article", 1)) == NEW
    assert state.claim(Request("http://x/a2", "article", 1)) == NEW
    assert state.claim(Request("http://x/a1", "article", 1)) == DUPLICATE
    state.done("http://x/")
    state.done("http://x/a1")
    state.close()  # as if killed after the last commit

    state = CrawlState(path)
    queued = state.begin()
    assert state.resumed and state.pass_no == 1
    assert [r.url for r in queued] == ["http://x/a2"]
    state.done("http://x/a2")
    state.finish_pass()
    state.close()

    state = CrawlState(path)
    assert state.begin() == [] and state.pass_no == 2 and not state.resumed
    assert state.claim(Request("http://x/", "list")) == NEW  # list pages are read again
    assert state.claim(Request("http://x/a1", "article", 1)) == KNOWN  # articles are not
    assert state.claim(Request("http://x/", "list")) == DUPLICATE
    state.close()


def test_failed_articles_are_retried_in_the_next_pass(tmp_path):
    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    state.claim(Request("http://x/a", "article"))
    state.done("http://x/a", ok=False)
    state.finish_pass()
    state.begin()
    assert state.claim(Request("http://x/a", "article")) == NEW
    state.close()


def test_uncommitted_work_is_redone_after_a_crash(tmp_path):
    path = tmp_path / "s.sqlite3"
    state = CrawlState(path, commit_every=10_000)
    state.begin()
    state.claim(Request("http://x/a", "article"))
    state.commit()
    state.done("http://x/a")  # not committed: the "crash" below loses it
    state._db.close()
    state._lockfile.close()  # a dead process holds no lock
    state = CrawlState(path)
    assert [r.url for r in state.begin()] == ["http://x/a"]
    state.close()


def test_two_crawls_never_share_one_state(tmp_path):
    from xnews_gui.crawl.state import CrawlBusy

    path = tmp_path / "site.sqlite3"
    first = CrawlState(path)
    with pytest.raises(CrawlBusy, match="a crawl of 'site' is already running"):
        CrawlState(path)
    first.close()
    CrawlState(path).close()  # free again once the first crawl has ended


def test_scheduler_with_persistent_claim(tmp_path):
    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    sched = BreadthFirst(lambda r: state.claim(r) == NEW)
    assert sched.push(Request("http://x/1"))
    assert not sched.push(Request("http://x/1"))
    state.close()


def test_change_rate_and_interval():
    assert change_rate(0, 0, 100) is None
    # changed on every one of 4 visits an hour apart: about once an hour or more
    rate = change_rate(4, 4, 4 * 3600)
    assert rate * 3600 > 1
    fast = next_interval(4, 4, 4 * 3600, 3600, 60, 86400)
    slow = next_interval(4, 1, 4 * 3600, 3600, 60, 86400)
    assert 60 <= fast < slow <= 86400
    assert next_interval(3, 0, 3 * 3600, 3600, 60, 86400) == 7200  # unchanged: wait twice as long
    assert next_interval(50, 0, 50 * 3600, 80000, 60, 86400) == 86400  # bounded by max
    assert next_interval(50, 50, 50, 1, 60, 86400) == 60  # bounded by min


def test_list_visits_adapt_the_revisit_interval(tmp_path):
    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    t = 1_000_000.0
    assert state.list_visit("http://x/cat", "h0", 60, 86400, now=t) is False
    assert not state.due("http://x/cat", now=t + 30) and state.due("http://x/cat", now=t + 61)
    for i in range(1, 5):  # changes at every hourly visit
        assert state.list_visit("http://x/cat", f"h{i}", 60, 86400, now=t + 3600 * i) is True
    fast = state.revisit_info("http://x/cat")["interval"]
    state.list_visit("http://x/static", "same", 60, 86400, now=t)
    for i in range(1, 5):
        assert state.list_visit("http://x/static", "same", 60, 86400, now=t + 3600 * i) is False
    slow = state.revisit_info("http://x/static")["interval"]
    assert fast < 3600 < slow
    assert state.next_visit() == pytest.approx(t + 4 * 3600 + fast)
    state.close()


def _graph(n: int = 300, seed: int = 5) -> dict[str, list[str]]:
    import random

    rng = random.Random(seed)
    return {f"http://x/{i}": [f"http://x/{rng.randrange(n)}" for _ in range(rng.randrange(6))] for i in range(n)}


def _order(scheduler, graph, score=lambda url: 0.0, state=None) -> list[str]:
    scheduler.push(Request("http://x/0"))
    order = []
    while (req := scheduler.pop()) is not None:
        order.append(req.url)
        for child in graph[req.url]:
            scheduler.push(Request(child, "list", req.depth + 1, req.url, priority=score(req.url)))
        if state is not None:
            state.done(req.url)  # as the engine does, before page_done
        scheduler.page_done(req.url)
    return order


@pytest.mark.parametrize("strategy", ["bfs", "dfs", "best_first"])
def test_disk_queue_keeps_the_in_memory_order_with_a_small_window(tmp_path, strategy):
    from xnews_gui.crawl.frontier import DiskQueue, make_scheduler

    graph = _graph()
    score = lambda url: (hash(url) % 7) / 7  # noqa: E731 - several equal scores: ties in discovery order
    expected = _order(make_scheduler(strategy), graph, score)
    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    queue = make_scheduler(strategy, lambda r, k: state.claim(r, k) == NEW, store=state, window=4)
    assert isinstance(queue, DiskQueue)
    peak = 0
    real_pop = queue.pop

    def pop():
        nonlocal peak
        peak = max(peak, len(queue._mem))
        return real_pop()

    queue.pop = pop
    assert _order(queue, graph, score, state) == expected
    assert peak <= 4 and len(queue) == 0
    state.close()


def test_disk_queue_random_is_seeded_and_complete(tmp_path):
    from xnews_gui.crawl.frontier import make_scheduler

    graph = _graph(100)
    orders = []
    for run in range(2):
        state = CrawlState(tmp_path / f"{run}.sqlite3")
        state.begin()
        orders.append(_order(make_scheduler("random", lambda r, k, state=state: state.claim(r, k) == NEW, store=state,
                                            window=8, seed=4), graph, state=state))
        state.close()
    assert orders[0] == orders[1] and len(set(orders[0])) == len(orders[0])
    assert set(orders[0]) == set(_order(make_scheduler("bfs"), graph))


def test_disk_queue_resumes_from_disk_in_order(tmp_path):
    from xnews_gui.crawl.frontier import make_scheduler

    path = tmp_path / "s.sqlite3"
    state = CrawlState(path)
    state.begin()
    queue = make_scheduler("bfs", lambda r, k: state.claim(r, k) == NEW, store=state, window=3)
    for i in range(10):
        queue.push(Request(f"http://x/{i}", "article"))
    for _ in range(4):
        state.done(queue.pop().url)
    in_flight = queue.pop()  # popped, never done: the next start fetches it again
    state.close()

    state = CrawlState(path)
    assert state.begin(load=False) == [] and state.resumed
    queue = make_scheduler("bfs", lambda r, k: state.claim(r, k) == NEW, store=state, window=3)
    assert len(queue) == 6
    assert not queue.push(Request("http://x/7", "article"))  # still known
    assert queue.push(Request("http://x/new", "article"))
    order = [queue.pop().url for _ in range(7)]
    assert order == [in_flight.url] + [f"http://x/{i}" for i in range(5, 10)] + ["http://x/new"]
    assert queue.pop() is None
    state.close()


def test_disk_queue_refill_while_a_page_is_done_but_not_yet_out_of_flight(tmp_path):
    """The engine marks a page done in the crawl state, then tells the scheduler; a refill in between
    (another thread popping) must not count that row as still queued and forget one on disk."""
    from xnews_gui.crawl.frontier import make_scheduler

    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    queue = make_scheduler("bfs", lambda r, k: state.claim(r, k) == NEW, store=state, window=4)
    urls = [f"http://x/{n}" for n in range(9)]
    for url in urls:
        assert queue.push(Request(url, "article", 1))
    popped = [queue.pop().url for _ in range(4)]  # in flight; the window is empty now
    for url in popped[1:]:
        state.done(url)
        queue.page_done(url)
    state.done(popped[0])  # done in the state, the scheduler not told yet
    while (req := queue.pop()) is not None:  # refills happen here
        popped.append(req.url)
        state.done(req.url)
        queue.page_done(req.url)
    queue.page_done(popped[0])
    assert sorted(popped) == sorted(urls) and state.queued_count() == 0
    state.close()


def test_a_commit_from_another_thread_never_splits_a_list_pages_links(tmp_path):
    import sqlite3
    import threading

    state = CrawlState(tmp_path / "s.sqlite3")
    state.begin()
    inside, committed = threading.Event(), threading.Event()

    def commit_elsewhere():  # the run loop's periodic commit
        inside.wait(5)
        state.commit()
        committed.set()

    other = threading.Thread(target=commit_elsewhere)
    other.start()
    with state.together():  # as the queuer claims one list page's links
        assert state.claim(Request("http://x/a1", "article", 1)) == NEW
        inside.set()
        assert not committed.wait(0.3)  # the commit waits for the block
        assert state.claim(Request("http://x/a2", "article", 1)) == NEW
    other.join(5)
    assert committed.is_set()
    seen = sqlite3.connect(tmp_path / "s.sqlite3").execute("SELECT url FROM url ORDER BY url").fetchall()
    assert seen == [("http://x/a1",), ("http://x/a2",)]
    state.close()
