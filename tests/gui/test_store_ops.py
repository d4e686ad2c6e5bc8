"""Store writes from the GUI run in the background, in order, with callbacks on the GUI thread."""

from __future__ import annotations

import threading

import pytest

from xnews_gui.ui import store_ops

pytestmark = pytest.mark.gui


def test_a_write_does_not_wait_for_the_crawls_writer(qtbot, store, make_articles):
    [aid] = make_articles(1)
    release = threading.Event()
    holding = threading.Event()

    def crawl_batch():  # the crawl's writer holds the lock for a whole batch
        with store.write_lock:
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=crawl_batch)
    holder.start()
    assert holding.wait(5)
    done = []
    store_ops.write(store.set_flags, aid, read=True, on_done=lambda result: done.append(threading.get_ident()))
    returned_while_held = not release.is_set()  # a write on the GUI thread would still be waiting here
    qtbot.wait(100)
    assert returned_while_held and done == [] and not store.get_article(aid).read
    release.set()
    holder.join(5)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == [threading.get_ident()]  # the callback ran on the GUI thread
    assert store.get_article(aid).read


def test_writes_land_in_the_order_they_were_made(qtbot, store, make_articles):
    [aid] = make_articles(1)
    finished = []
    for i in range(40):
        store_ops.write(store.set_flags, aid, starred=(i % 2 == 0), on_done=lambda _, i=i: finished.append(i))
    qtbot.waitUntil(lambda: len(finished) == 40, timeout=10000)
    assert finished == list(range(40))
    assert store.get_article(aid).starred is False  # the last one (i = 39) unstarred it


def test_a_failed_write_is_reported_never_lost(qtbot, store):
    def broken(name):
        raise ValueError(f"no such topic {name}")

    errors = []
    store_ops.write(broken, "x", on_error=errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert "ValueError: no such topic x" in errors[0]
    with qtbot.waitSignal(store_ops.reporter().failed, timeout=5000) as reported:  # no on_error: the app hears it
        store_ops.write(broken, "y")
    assert "Could not save (broken)" in reported.args[0] and "no such topic y" in reported.args[0]
