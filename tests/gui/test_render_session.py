"""The app's crawl of a JavaScript-only section: the crawl session starts the crawl's process with a
render pool of offscreen QtWebEngine pages in it, and the articles built in the browser are stored."""

from __future__ import annotations

import os

from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl import CrawlOptions
from xnews_gui.demo.site import DemoSite
from xnews_gui.ui.crawl_session import CrawlSession

from ..integration.test_render import js_profile


def test_a_render_profile_is_crawled_through_the_apps_render_pool(qtbot, store, demo_server):
    base = demo_server.url.rstrip("/")
    profile = Profile.from_dict(js_profile(base))
    session = CrawlSession(profile, store, CrawlOptions(fetch_images=False, save_raw=False, max_articles=6),
                           classifier=None)
    with qtbot.waitSignal(session.finished, timeout=60000) as finished:
        session.start()
    summary = finished.args[0]
    assert summary["articles"] == 6 and summary["rendered"] >= 6 and summary["errors"] == 0
    titles = {a.title for a in DemoSite().articles}
    stored = store.articles_in_order()
    assert len(stored) == 6 and all(a["title"] in titles and a["url"].startswith(base + "/js/") for a in stored)
    run = store.recent_runs(1, profile=profile.name)[0]
    assert run.pid != os.getpid(), "the render profile was crawled in the app's process"
    assert session.state == run.status == summary["status"] == "limit"  # (max_articles)


def test_periodic_passes_of_a_render_profile_go_through_the_render_pool(qtbot, tmp_path, demo_server):
    """A re-crawl on a schedule (``crawl --periodic``) renders its pages as a single crawl does."""
    import threading

    from PySide6.QtCore import QCoreApplication, QEvent

    from xnews_gui.crawl.periodic import PeriodicCrawler
    from xnews_gui.crawl.sink import MemorySink
    from xnews_gui.ui.render_pool import RenderPool

    profile = Profile.from_dict(js_profile(demo_server.url.rstrip("/")))
    pool = RenderPool(2)
    runner = PeriodicCrawler(profile, MemorySink(), state_dir=tmp_path, renderer=pool,
                             options=CrawlOptions(fetch_images=False, save_raw=False, max_articles=3))
    box: list = []
    thread = threading.Thread(target=lambda: box.append(runner.run_pass()), name="periodic-test")
    thread.start()
    try:
        qtbot.waitUntil(lambda: not thread.is_alive(), timeout=60_000)
    finally:
        thread.join(60)
        pool.close()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        pool.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    summary = box[0]
    assert summary["articles"] == 3 and summary["rendered"] >= 3 and pool.rendered >= 3
