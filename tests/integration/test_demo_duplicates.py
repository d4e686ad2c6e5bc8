"""Crawling the demo site groups as one story only the wire copies with their original, not whole
sections (each section's other stories are distinct text)."""

from __future__ import annotations

from xnews_gui.crawl import CrawlOptions, Crawler
from xnews_gui.demo.site import DemoSite
from xnews_gui.store.queries import ArticleFilter
from xnews_gui.store.sink import StoreSink


def test_the_demo_crawl_groups_only_the_wire_copies(store, data_dir, demo_server, demo_profile):
    sink = StoreSink(store, "demo")
    sink.start_run()
    summary = Crawler(demo_profile, sink, state_dir=data_dir / "crawl",
                      options=CrawlOptions(fetch_images=False, save_raw=False)).run()
    sink.finish_run(summary)
    assert summary["articles"] == 72

    base = demo_server.url.rstrip("/")
    groups: dict[int, set[str]] = {}
    for url, group in store.db.execute_sql("SELECT url, dup_group FROM article").fetchall():
        assert group is not None
        groups.setdefault(group, set()).add(url[len(base):])
    told_twice = DemoSite().stories_told_twice()
    assert sorted(map(sorted, (g for g in groups.values() if len(g) > 1))) == sorted(map(sorted, told_twice))
    assert len(groups) == 72 - sum(len(g) - 1 for g in told_twice)

    rows = store.rows_by_id([i for _, i in store.ordered_keys(ArticleFilter())])
    assert sorted(r[-1] for r in rows.values() if r[-1] > 1) == [2, 2, 2, 2, 3, 3, 3]  # "N sources"
    shown = store.ordered_keys(ArticleFilter(hide_duplicates=True))
    assert len(shown) == len(groups)
