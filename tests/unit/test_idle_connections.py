"""The crawl's urllib3 pools keep idle connections in sockets.IdleConnections: it must answer as the
queue.LifoQueue it replaces does for urllib3's calls (LIFO reuse, Empty, Full, a blocking get)."""

from __future__ import annotations

import queue
import random
import threading
import time

import pytest

from xnews_gui.crawl.sockets import IdleConnections, InFlight, pool_classes


def _step(q, op, item):
    try:
        if op == "get":
            return ("got", q.get(block=False))
        q.put(item, block=False)
        return ("put", q.qsize())
    except queue.Empty:
        return ("empty", q.qsize())
    except queue.Full:
        return ("full", q.qsize())


def test_answers_as_lifoqueue_for_non_blocking_gets_and_puts():
    rng = random.Random(3)
    for maxsize in (0, 1, 3, 18):
        ours, theirs = IdleConnections(maxsize), queue.LifoQueue(maxsize)
        for _ in range(min(maxsize, 2)):  # urllib3 fills a new pool with None
            ours.put(None)
            theirs.put(None)
        for i in range(2000):
            op = rng.choice(("get", "put"))
            assert _step(ours, op, i) == _step(theirs, op, i)


def test_a_blocking_get_waits_for_a_put_or_its_timeout():
    idle = IdleConnections(2)
    started = time.monotonic()
    with pytest.raises(queue.Empty):
        idle.get(block=True, timeout=0.05)
    assert time.monotonic() - started >= 0.04
    got = []
    taker = threading.Thread(target=lambda: got.append(idle.get(block=True, timeout=10)))
    taker.start()
    time.sleep(0.05)
    idle.put("conn", block=False)
    taker.join(5)
    assert got == ["conn"] and idle.qsize() == 0


def test_the_crawl_pools_keep_their_idle_connections_there():
    for pool_class in pool_classes(InFlight()).values():
        pool = pool_class("127.0.0.1", 9, maxsize=3)
        assert isinstance(pool.pool, IdleConnections) and pool.pool.qsize() == 3
        pool.close()
