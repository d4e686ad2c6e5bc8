"""The one crawl set-up (services.crawl.start_crawl): the run record says how each crawl ended."""

from __future__ import annotations

import json

import pytest

from xnews_gui.crawl.engine import CrawlOptions
from xnews_gui.crawl.state import CrawlBusy, CrawlState
from xnews_gui.services.crawl import start_crawl, state_dir


def test_a_crawl_records_its_run_from_start_to_end(store, demo_profile):
    events = []
    handle = start_crawl(demo_profile, store, CrawlOptions(max_pages=12, fetch_images=False, delay_s=0.0),
                         events.append, classifier=None)
    [run] = store.recent_runs()
    assert (run.id, run.status, run.finished) == (handle.run_id, "running", None)
    summary = handle.run()
    [run] = store.recent_runs()
    assert run.status == summary["status"] == "limit" and run.finished is not None
    assert run.pages == summary["pages"] > 0 and run.articles == summary["articles"] > 0
    assert store.count_articles("demo") == summary["articles"]
    assert any(e.kind == "article" for e in events)  # the caller hears the crawl


def test_a_refused_crawl_is_recorded_as_refused(store, demo_profile):
    running = CrawlState(state_dir(store) / f"{demo_profile.name}.sqlite3")  # as a crawl in another process
    try:
        handle = start_crawl(demo_profile, store, CrawlOptions(fetch_images=False), classifier=None)
        with pytest.raises(CrawlBusy):
            handle.run()
    finally:
        running.close()
    [run] = store.recent_runs()
    assert run.status == "refused" and run.finished is not None
    assert "is already running" in json.loads(run.stats_json)["refused_reason"]  # History says why


def test_skipped_topics_come_from_the_store(store, demo_profile):
    store.set_category_hidden("The thao", True)
    assert start_crawl(demo_profile, store, classifier=None).sink.skip_categories == frozenset()
    handle = start_crawl(demo_profile, store, classifier=None, skip_hidden_topics=True)
    assert handle.sink.skip_categories == frozenset({"The thao"})
