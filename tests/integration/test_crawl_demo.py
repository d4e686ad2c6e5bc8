"""The whole demo site into a real SQLite store; incremental re-crawl; pause/resume/stop; periodic."""

from __future__ import annotations

import threading
import time
import urllib.request

from xnews_gui.crawl import CrawlOptions, Crawler
from xnews_gui.crawl.periodic import PeriodicCrawler
from xnews_gui.core.disk.raw_pages import read_raw
from xnews_gui.crawl.storage import image_file
from xnews_gui.demo.site import DemoSite
from xnews_gui.paths import image_cache_dir, image_file as store_image_file, raw_pages_dir
from xnews_gui.store.repo import SKIPPED
from xnews_gui.store.sink import StoreSink


def crawler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("xnews-crawl")]


def assert_raw_pages_as_served(store, data_dir) -> None:
    Page = store.models.Page
    rows = list(Page.select().where(Page.status == 200))
    assert len(rows) > 72 and {r.kind for r in rows} == {"article", "list"}
    for row in rows:
        with urllib.request.urlopen(row.url) as served:
            assert read_raw(raw_pages_dir(data_dir), row.raw_path) == served.read(), row.url


def test_full_demo_crawl_then_incremental(store, data_dir, demo_server, demo_profile):
    Article, ImageCache, Page = store.models.Article, store.models.ImageCache, store.models.Page
    sink = StoreSink(store, "demo")
    sink.start_run()
    events = []
    summary = Crawler(demo_profile, sink, state_dir=data_dir / "crawl", on_event=events.append).run()
    sink.finish_run(summary)
    assert summary["status"] == "finished" and summary["errors"] == 0
    assert summary["articles"] == 72 and summary["article_pages"] == 72
    assert summary["broken_fields"] == [] and all(r == 1.0 for r in summary["fill_rate"].values())

    site = DemoSite()
    base = demo_server.url.rstrip("/")
    rows = {a.url: a for a in Article.select()}
    assert len(rows) == 72
    for demo in site.articles:
        row = rows[base + demo.path]
        assert row.title == demo.title and row.summary == demo.summary and row.author == demo.author
        assert row.published == demo.published.isoformat() + "+07:00"
        assert row.image_url == base + demo.image
        assert demo.paragraphs[0] in row.body_text and demo.paragraphs[-1] in row.body_text
        assert row.section_label == row.category and row.section_label  # no model: the section's topic
        assert row.profile == "demo" and row.run_id is not None

    # every page's raw HTML, as served, where its page-log row says
    page = Page.get(Page.url == base + site.articles[0].path)
    assert page.status == 200 and page.encoding == "utf-8" and page.kind == "article"
    assert_raw_pages_as_served(store, data_dir)
    # images: main and inline, content-addressed in the store's layout
    images = list(ImageCache.select())
    wanted = sum(1 + len(a.inline_images) for a in site.articles)
    assert len(images) == wanted and all(not i.error for i in images)
    one = ImageCache.get(ImageCache.url == base + site.articles[0].image)
    assert image_file(image_cache_dir(data_dir), one.sha256, one.content_type) == \
        store_image_file(store.images_root, one.sha256, one.content_type)
    assert store_image_file(image_cache_dir(data_dir), one.sha256, one.content_type).stat().st_size == one.size

    stats = [e for e in events if e.kind == "stats"]
    assert stats and all("pages_per_s" in e.data and "queue" in e.data for e in stats)
    assert events[-1].kind == "finished"

    # incremental: list pages are read again, no article page is fetched
    again = []
    summary = Crawler(demo_profile, sink, state_dir=data_dir / "crawl", on_event=again.append).run()
    assert summary["status"] == "finished" and summary["articles"] == 0
    assert summary["article_pages"] == 0 and summary["list_pages"] >= 1
    assert not [e for e in again if e.kind == "page" and e.data["kind"] == "article"]
    assert Article.select().count() == 72
    assert not crawler_threads()
    # the list pages' first copies are dead: tidying merges the two small packs into one, every row still reads
    packs = raw_pages_dir(data_dir) / "packs"
    before = sorted(packs.iterdir())
    assert len(before) == 2 and store.tidy_raw_pages() > 0
    after = sorted(packs.iterdir())
    assert len(after) == 1 and after[0] not in before
    assert_raw_pages_as_served(store, data_dir)


def test_pause_resume_stop_take_effect_quickly(store, data_dir, demo_profile):
    Article = store.models.Article
    profile = demo_profile.with_(crawl=demo_profile.crawl.__class__(**{**demo_profile.crawl.__dict__,
                                                                         "delay_s": 0.04, "concurrency": 2}))
    sink = StoreSink(store, "demo")
    pages: list[float] = []
    crawler = Crawler(profile, sink, state_dir=data_dir / "crawl", options=CrawlOptions(fetch_images=False),
                      on_event=lambda e: pages.append(time.monotonic()) if e.kind == "page" else None)
    result = {}
    thread = threading.Thread(target=lambda: result.update(crawler.run()))
    thread.start()
    while len(pages) < 10:
        time.sleep(0.01)
    crawler.pause()
    paused_at = time.monotonic()
    time.sleep(1.5)
    assert not [t for t in pages if t > paused_at + 1.0]  # in-flight pages finish, nothing new starts
    assert crawler.stats["paused"] and crawler.stats["busy"] == 0
    count = len(pages)
    crawler.resume()
    while len(pages) < count + 5:
        time.sleep(0.01)
    crawler.stop()
    stopped_at = time.monotonic()
    thread.join(5)
    assert not thread.is_alive() and time.monotonic() - stopped_at < 1.0
    assert result["status"] == "stopped" and not crawler_threads()
    first = result["articles"]
    assert 0 < first < 72

    # the next start resumes the stopped pass: every article exactly once
    summary = Crawler(profile, sink, state_dir=data_dir / "crawl", options=CrawlOptions(fetch_images=False)).run()
    assert summary["resumed"] and summary["status"] == "finished"
    assert first + summary["articles"] == 72 and Article.select().count() == 72


def test_limits(store, data_dir, demo_profile):
    Article = store.models.Article
    sink = StoreSink(store, "demo")
    options = CrawlOptions(max_articles=10, fetch_images=False)
    summary = Crawler(demo_profile, sink, state_dir=data_dir / "crawl", options=options).run()
    assert summary["status"] == "limit" and summary["articles"] == 10 and Article.select().count() == 10
    summary = Crawler(demo_profile, sink, state_dir=data_dir / "crawl",
                      options=CrawlOptions(max_pages=5, fetch_images=False)).run()
    assert summary["status"] == "limit" and summary["pages"] <= 5


def test_periodic_passes_set_next_run(store, data_dir, demo_profile):
    crawl = demo_profile.crawl.__class__(**{**demo_profile.crawl.__dict__, "revisit_min": 0.001,
                                           "revisit_max_min": 0.01})
    profile = demo_profile.with_(crawl=crawl)
    sink = StoreSink(store, "demo")
    runner = PeriodicCrawler(profile, sink, state_dir=data_dir / "crawl", options=CrawlOptions(fetch_images=False))
    before = time.time()
    passes = runner.run_forever(max_passes=2)
    assert [p["articles"] for p in passes] == [72, 0]
    assert before + 0.06 <= runner.next_run_at <= time.time() + 0.6 + 0.01
    assert passes[1]["list_pages"] >= 1 and passes[1]["article_pages"] == 0


def test_skipped_topics_are_not_stored_and_not_fetched_again(store, data_dir, demo_server, demo_profile):
    Article, Page = store.models.Article, store.models.Page
    """With 'skip topics I am not interested in' on, sport articles are left out, and a re-crawl knows them."""
    sink = StoreSink(store, "demo", skip_categories={"The thao"})
    first = Crawler(demo_profile, sink, state_dir=data_dir / "crawl", options=CrawlOptions(fetch_images=False)).run()
    sink.flush()
    assert first["articles"] == 60 and first["skipped_topic"] == 12
    assert Article.select().count() == 60
    assert not Article.select().where(Article.category == "The thao").exists()
    sport = [u for u in (a.path for a in DemoSite().articles) if u.startswith("/the-thao/")]
    url = demo_server.url.rstrip("/") + sport[0]
    assert store.is_known(url) and Page.get(Page.url == url).kind == SKIPPED

    again = Crawler(demo_profile, sink, state_dir=data_dir / "crawl", options=CrawlOptions(fetch_images=False)).run()
    sink.flush()
    assert again["articles"] == 0 and again["article_pages"] == 0  # nothing fetched again, sport included
