"""The per-host delay counts from the moment a request really went out."""

from __future__ import annotations

import time

from xnews_gui.crawl.politeness import HostGate


def test_a_request_that_leaves_late_pushes_the_next_one_back():
    gate = HostGate(delay_s=0.1, per_host=4)
    with gate.slot("news.example") as sent:
        time.sleep(0.06)  # the request goes out late (a busy machine, a garbage collection)
        sent()
        sent_at = time.monotonic()
    with gate.slot("news.example") as sent:
        entered = time.monotonic()
        sent()
    assert entered - sent_at >= 0.1 - 0.002


def test_hosts_do_not_wait_for_each_other():
    gate = HostGate(delay_s=5.0, per_host=1)
    started = time.monotonic()
    for host in ("a.example", "b.example", "c.example"):
        with gate.slot(host) as sent:
            sent()
    assert time.monotonic() - started < 1.0
